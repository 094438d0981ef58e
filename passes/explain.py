"""
Why a list schedule moved ops or held them back, in words (`explain=true`).

The pass records, per block, what moved and why (`explain_order`), and
words it once the whole module is done (`render_explanations`), naming each
value as the module printed after the pass shows it (`printed_names`): the
copies of a lowered body share their name hints, and only the printer's
`%t`, `%t_1`, ... tell them apart.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from itertools import pairwise

from xdsl.dialects import func
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsolatedFromAbove

from passes.analysis import DependenceGraph
from passes.analysis.dependence import Dependence, describe_value
from passes.mechanisms.scheduling import KeyT
from pypto_dialect.walks import closest


@dataclass(frozen=True)
class HeldBy:
    """The predecessor that released an op last, and the dependences on it."""

    index: int
    op: Operation
    reasons: tuple[Dependence, ...]
    engine: str | None = None
    """Without a dependence: the engine whose queue the two keep in order."""


@dataclass(frozen=True)
class Step:
    """An op that moved, or that a dependence held back: `#old -> #new`."""

    old: int
    new: int
    op: Operation
    moved: bool
    held_by: HeldBy | None


@dataclass(frozen=True)
class BlockExplanation:
    """The steps worth explaining in one block (`where` names the block)."""

    where: str
    steps: tuple[Step, ...]
    notes: tuple[str, ...] = ()
    """Lines before the steps (`order=modelled`: the candidates and their times)."""


def describe_block(block: Block) -> str:
    """`a block of <op> in @<function>`."""
    owner = block.parent_op()
    if owner is None:
        return "a detached block"
    function = closest(owner, func.FuncOp)
    where = f" in @{function.sym_name.data}" if function is not None else ""
    return f"a block of {owner.name}{where}"


def explain_order(
    graph: DependenceGraph,
    keys: Sequence[KeyT],
    order: Sequence[int],
    moved: Sequence[int],
    chains: Mapping[str, Sequence[int]] | None = None,
) -> tuple[Step, ...]:
    """
    The ops of `graph` that were moved, or held back by a dependence (emitted
    after an op of larger key), each with the predecessor that released it
    last; with `chains` (ops kept in order per engine, by name), the op
    before it on its engine counts as a predecessor too.
    """
    chained: dict[int, dict[int, str]] = {}
    for name, chain in (chains or {}).items():
        for earlier, later in pairwise(chain):
            chained.setdefault(later, {})[earlier] = name
    position = {index: pos for pos, index in enumerate(order)}
    moved_set = set(moved)
    steps: list[Step] = []
    largest: KeyT | None = None
    for pos, index in enumerate(order):
        held_by = None
        if largest is not None and keys[index] < largest:
            predecessors = graph.predecessor_indices(index)
            on_engine = chained.get(index, {})
            binding = max([*predecessors, *on_engine], key=position.__getitem__)
            held_by = HeldBy(
                binding,
                graph.ops[binding],
                tuple(predecessors.get(binding, ())),
                on_engine.get(binding),
            )
        if index in moved_set or held_by is not None:
            steps.append(
                Step(index, pos, graph.ops[index], index in moved_set, held_by)
            )
        largest = keys[index] if largest is None else max(largest, keys[index])
    return tuple(steps)


def render_explanations(
    explanations: Sequence[BlockExplanation], names: Mapping[SSAValue, str]
) -> str:
    """
    One header per block, then one line per step: `#old -> #new op (%results):
    moved, held by #p op: why`, values named by `names` (`printed_names`).
    """

    def name(value: SSAValue) -> str:
        return printed_name(value, names)

    lines: list[str] = []
    for explanation in explanations:
        lines.append(f"canonicalize-io-order: {explanation.where}:")
        lines.extend(explanation.notes)
        for step in explanation.steps:
            parts = ["moved"] if step.moved else []
            if (held := step.held_by) is not None:
                reasons = sorted(reason.describe(name) for reason in held.reasons)
                if not reasons:
                    reasons = [f"keeps its place on {held.engine}"]
                parts.append(
                    f"held by #{held.index} {_describe_op(held.op, name)}: "
                    + "; ".join(reasons)
                )
            lines.append(
                f"  #{step.old} -> #{step.new} {_describe_op(step.op, name)}: "
                + ", ".join(parts)
            )
    return "\n".join(lines)


def printed_name(value: SSAValue, names: Mapping[SSAValue, str]) -> str:
    """`%name` as `names` (`printed_names`) has it, else what defines the value."""
    printed = names.get(value)
    return describe_value(value) if printed is None else f"%{printed}"


def _describe_op(op: Operation, name: Callable[[SSAValue], str]) -> str:
    """`op.name (%result, ...)`."""
    results = ", ".join(name(result) for result in op.results)
    return op.name + (f" ({results})" if results else "")


def printed_names(root: Operation) -> dict[SSAValue, str]:
    """
    The names xDSL's `Printer` gives the values of `root` when it prints it:
    a value is named where it is first printed (an op's results before the
    op, then the operands it refers to ahead of their definition, then its
    regions, each block's arguments before its ops), after its name hint,
    with `_1`, `_2`, ... when the hint is taken, else by the next number; an
    op `IsolatedFromAbove` starts a scope of its own, as in `Printer.print_op`.
    One walk, with a stack: nesting costs no recursion.
    """
    names: dict[SSAValue, str] = {}
    hints: list[dict[str, int]] = [{}]
    numbers = [0]

    def name(value: SSAValue) -> None:
        if value in names:
            return
        hint = value.name_hint
        if not hint:
            names[value] = str(numbers[-1])
            numbers[-1] += 1
            return
        taken = hints[-1].get(hint, 0)
        names[value] = f"{hint}_{taken}" if taken else hint
        hints[-1][hint] = taken + 1

    stack: list[Operation | Block | None] = [root]  # None: leave a scope
    while stack:
        item = stack.pop()
        if item is None:
            hints.pop()
            numbers.pop()
        elif isinstance(item, Block):
            for argument in item.args:
                name(argument)
            stack.extend(reversed(list(item.ops)))
        else:
            for result in item.results:
                name(result)
            if item.get_traits_of_type(IsolatedFromAbove):  # as the printer asks
                hints.append(dict(hints[-1]))
                numbers.append(numbers[-1])
                stack.append(None)
            for operand in item.operands:
                name(operand)
            stack.extend(
                block
                for region in reversed(item.regions)
                for block in reversed(list(region.blocks))
            )
    return names
