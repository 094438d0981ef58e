"""
IR integrity for the tests: the links of the in-memory IR agree with the IR.

The printer and the verifier read operands and the op lists of blocks, never
use lists or parent pointers, so a pass can leave these wrong and still print
and verify fine (an `scf.yield` built, never inserted, but recorded as a use),
and the next pass that reads them crashes. `check_integrity` checks them too;
`apply_checked` applies a pass and checks its output.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import TypeAlias

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue, Use
from xdsl.passes import ModulePass

from pypto_dialect.walks import walk_ops

Used: TypeAlias = SSAValue | Block
"""What ops use: values (as operands) and blocks (as successors)."""


def apply_checked(pass_: ModulePass, ctx: Context, module: ModuleOp) -> None:
    """Apply `pass_` to `module` in place, then `check_integrity(module)`."""
    pass_.apply(ctx, module)
    check_integrity(module)


def check_integrity(module: ModuleOp) -> None:
    """`check_links(module)`, then `module.verify()`."""
    check_links(module)
    module.verify()


def check_links(module: ModuleOp) -> None:
    """
    Raise AssertionError unless, in `module`:

    * every region's, block's and op's parent is the op, region or block that
      contains it, every block's op list reads the same both ways, and every
      result and block argument knows its owner and index;
    * operand #i of every op is a value defined in the module whose uses
      record `Use(op, i)` once, and every use of every value defined in the
      module (results, block arguments) is an operand of an op of the module,
      at that index; the same for successors and the uses of blocks.

    Linear in the size of the module, without recursion (unlike `verify`).
    """
    ops, blocks = _contents(module)
    values = [value for op in ops for value in op.results]
    values += [value for block in blocks for value in block.args]
    _check_uses("operand", values, ops, lambda op: op.operands)
    _check_uses("successor", blocks, ops, lambda op: op.successors)


def _contents(module: ModuleOp) -> tuple[list[Operation], list[Block]]:
    """The ops (`module` too) and blocks of `module`, with their parents checked."""
    ops = list(walk_ops(module))
    blocks: list[Block] = []
    for op in ops:
        for index, result in enumerate(op.results):
            assert result.op is op and result.index == index, (
                f"result #{index} of {_describe_op(op)} says it is {_describe(result)}"
            )
        for r, region in enumerate(op.regions):
            assert region.parent is op, (
                f"region #{r} of {_describe_op(op)}: its parent is not that op"
            )
            for b, block in enumerate(region.blocks):
                assert block.parent is region, (
                    f"block {r}.{b} of {_describe_op(op)}: its parent is not region "
                    f"#{r} of that op"
                )
                blocks.append(block)
                for index, arg in enumerate(block.args):
                    assert arg.block is block and arg.index == index, (
                        f"argument #{index} of {_describe_block(block)} says it is "
                        f"{_describe(arg)}"
                    )
                _check_op_list(block)
                for k, nested in enumerate(block.ops):
                    parent = nested.parent
                    assert parent is block, (
                        f"{_name(nested)}, op {r}.{b}.{k} of {_describe_op(op)}: its "
                        "parent is "
                        + ("no block" if parent is None else _describe_block(parent))
                    )
    return ops, blocks


def _check_op_list(block: Block) -> None:
    """
    The op list of `block` reads the same from its first op on and from its
    last op back (so its ends link nowhere else).
    """
    forward = list(block.ops)
    backward = list(reversed(block.ops))[::-1]
    assert forward == backward, (
        f"{_describe_block(block)}: its ops read differently backward"
    )


def _check_uses(
    kind: str,
    defined: Iterable[Used],
    users: Sequence[Operation],
    used: Callable[[Operation], Sequence[Used]],
) -> None:
    """
    Each use of a `defined` item is the `kind` (operand or successor) of a
    `users` op at its index, and each `kind` of a user is a `defined` item
    whose uses record it exactly once.
    """
    attached = set(users)
    recorded: dict[Used, set[tuple[Operation, int]]] = {}
    for item in defined:
        seen = recorded[item] = set[tuple[Operation, int]]()
        for use in item.uses:
            user, index = use.operation, use.index
            targets = used(user) if user in attached else ()
            target = targets[index] if index < len(targets) else None
            if target is not item or (user, index) in seen:
                raise AssertionError(
                    _bad_use(kind, item, use, target, attached=user in attached)
                )
            seen.add((user, index))
    for op in users:
        for index, item in enumerate(used(op)):
            uses = recorded.get(item)
            if uses is None or (op, index) not in uses:
                where = f"{kind} #{index} of {_describe_op(op)} is {_describe(item)}"
                raise AssertionError(
                    f"{where}, which is not defined in the module"
                    if uses is None
                    else f"{where}, whose uses do not record it"
                )


def _bad_use(
    kind: str, item: Used, use: Use, target: Used | None, *, attached: bool
) -> str:
    """Why `use` of `item` is wrong (`target` is what the user has there)."""
    user, index = use.operation, use.index
    where = f"{_describe(item)} has a use as {kind} #{index} of {_describe_op(user)}"
    if not attached:
        return f"{where}, which is not in the module"
    if target is item:
        return f"{where} twice"
    return f"{where}, which is " + (
        f"no {kind}" if target is None else _describe(target)
    )


def _describe(item: Used) -> str:
    """A block by position, a value by name hint and owner."""
    match item:
        case Block():
            return _describe_block(item)
        case OpResult():
            owner = f"result #{item.index} of {_describe_op(item.op)}"
        case BlockArgument():
            owner = f"argument #{item.index} of {_describe_block(item.block)}"
        case _:
            owner = f"an {type(item).__name__}"
    hint = item.name_hint
    return owner if hint is None else f"%{hint} ({owner})"


def _describe_op(op: Operation) -> str:
    """
    `op` and its ancestors, outermost first, each with its position
    `region.block.op` in its parent, e.g.
    `builtin.module / func.func @k at 0.0.0 / scf.yield at 0.0.4`.
    """
    steps: list[str] = []
    while True:
        block = op.parent
        owner = None if block is None else _block_position(block)
        if block is None or owner is None:
            detached = block is not None or not isinstance(op, ModuleOp)
            steps.append(f"{_name(op)} (detached)" if detached else _name(op))
            return " / ".join(reversed(steps))
        parent, position = owner
        steps.append(f"{_name(op)} at {position}.{_index(block.ops, op)}")
        op = parent


def _describe_block(block: Block) -> str:
    """`block` by its position in its parent op, itself by `_describe_op`."""
    owner = _block_position(block)
    if owner is None:
        return "a detached block"
    parent, position = owner
    return f"block {position} of {_describe_op(parent)}"


def _block_position(block: Block) -> tuple[Operation, str] | None:
    """The op whose region holds `block`, and the position `region.block` in it."""
    region = block.parent
    if region is None or region.parent is None:
        return None
    parent = region.parent
    return parent, f"{_index(parent.regions, region)}.{_index(region.blocks, block)}"


def _index(items: Iterable[object], item: object) -> str:
    """The position of `item` in `items` (by identity), `?` when absent."""
    return next((str(n) for n, other in enumerate(items) if other is item), "?")


def _name(op: Operation) -> str:
    """The op's name, and its symbol if it has one (`func.func @k`)."""
    symbol = op.properties.get("sym_name")
    return f"{op.name} @{symbol.data}" if isinstance(symbol, StringAttr) else op.name
