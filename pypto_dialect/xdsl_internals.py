"""
The one door to xDSL's internals: the fast paths that read or write the
private fields of xDSL's IR classes, each beside its public-API twin.

The fast paths build what xDSL's public API builds, field by field: a copy
(`Operation.clone`), a new op (`Operation.create`) or attribute (its class),
an insertion (`Builder.insert`), a replacement (`PatternRewriter.replace`),
a block's ops read and reordered. The lowering spends most of its time here.
`test_xdsl_internals.py` compares each with its twin.

Which set is used is decided once, at import: the public twins when the
environment sets `PYPTO_XDSL_PUBLIC=1` or the installed xDSL is not one of
`TESTED_XDSL`, the fast paths otherwise (`fast_paths_enabled()`). An xDSL
upgrade so costs speed, never correctness.
"""

# This module is the one place allowed to use xDSL's private fields.
# pyright: reportPrivateUsage=false

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from functools import cache
from importlib.metadata import version
from operator import attrgetter, itemgetter
from typing import TYPE_CHECKING, Any, Literal, NoReturn, cast

from xdsl.builder import Builder
from xdsl.dialects.builtin import LocationAttr
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.core import OpT, SSAValues, Use
from xdsl.irdl.constraints import ParametrizedAttributeT as _AttrT
from xdsl.pattern_rewriter import PatternRewriter

from pypto_dialect.irdl_defaults import irdl_defaults

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.interpreter import (
        Interpreter,
        OpImplResult,
        _InterpreterFunctionImpls,
    )
    from xdsl.parser import BaseParser

    Listener = Interpreter.Listener

TESTED_XDSL = frozenset({"0.75.0"})
"""The xDSL versions the fast paths were tested with."""

PUBLIC_ENV = "PYPTO_XDSL_PUBLIC"
"""The environment variable that, set to 1, selects the public twins."""


def selects_fast_paths(environ: Mapping[str, str], xdsl_version: str) -> bool:
    """
    Whether the fast paths are chosen in the environment `environ` with
    xDSL `xdsl_version` installed (see the module's docstring).
    """
    return environ.get(PUBLIC_ENV) != "1" and xdsl_version in TESTED_XDSL


_FAST = selects_fast_paths(os.environ, version("xdsl"))


def fast_paths_enabled() -> bool:
    """Whether the fast paths are on (else the public twins are)."""
    return _FAST


operands: Callable[[Operation], Sequence[SSAValue]] = attrgetter(
    "_operands" if _FAST else "operands"
)
"""The operands of an op (a getter in C: the analyses call it per op)."""


def block_ops(block: Block) -> list[Operation]:
    """
    `list(block.ops)`; the fast path reads xDSL's links directly (the
    block's iterator costs two Python calls per op).
    """
    if not _FAST:
        return list(block.ops)
    ops: list[Operation] = []
    op = block._first_op
    while op is not None:
        ops.append(op)
        op = op._next_op
    return ops


def skip_to(parser: BaseParser, pos: int) -> bool:
    """
    Continue parsing at `pos`, past text read without the lexer, and say
    so; or, with the public twins, do nothing and say so (the caller then
    parses the text). xDSL has no public API for it; its own
    `_parse_dialect_symbol_body` does the same.
    """
    if _FAST:
        parser._resume_from(pos)
    return _FAST


def set_valid_name(value: SSAValue, name: str | None) -> None:
    """
    `value.name_hint = name` for a `name` already valid (the original's, or
    checked once): the fast path skips the check.
    """
    if _FAST:
        value._name = name
    else:
        value.name_hint = name


def relink(block: Block, ordered: Sequence[Operation]) -> None:
    """
    Make `ordered`, a permutation of the ops of `block`, its op list (each
    op detached and added back); the fast path sets the links directly
    (an insertion walks up to the root to rule out cycles). Unnotified.
    """
    if not _FAST:
        for op in ordered:
            block.detach_op(op)
        block.add_ops(ordered)
        return
    _link(block, ordered, None, None)


def _link(
    block: Block,
    ops: Sequence[Operation],
    previous: Operation | None,
    following: Operation | None,
) -> None:
    """
    Link `ops`, in order, into `block` between `previous` and `following`
    (None: the block's ends), setting xDSL's fields directly.
    """
    for op in ops:
        op.parent = block
        op._prev_op = previous
        if previous is None:
            block._first_op = op
        else:
            previous._next_op = op
        previous = op
    if previous is not None:
        previous._next_op = following
    if following is None:
        block._last_op = previous
    else:
        following._prev_op = previous


def clone_op(op: Operation, mapper: dict[SSAValue, SSAValue]) -> Operation:
    """
    A detached copy of `op`, regions included: `op.clone(mapper)` (operands
    through `mapper`, the copy's results and block arguments recorded in
    it). The fast path sets each field once (`Operation.clone` goes through
    `Operation.__init__`, re-validating every name hint).
    """
    if not _FAST:
        return op.clone(mapper)
    if not op.regions:
        copy = _copy_fields(op, tuple([mapper.get(v, v) for v in op._operands]), mapper)
        if op._successors:
            copy.successors = op._successors
        return copy
    # As in `Operation.clone`: the whole tree first, then the operands, as a
    # value of a region may be used before its definition (graph regions,
    # blocks out of dominance order).
    blocks: dict[Block, Block] = {}
    pairs: list[tuple[Operation, Operation]] = []
    copy = _copy_tree(op, mapper, blocks, pairs)
    for original, new in pairs:
        _set_operands(new, tuple([mapper.get(v, v) for v in original._operands]))
        if original._successors:
            new.successors = [blocks.get(b, b) for b in original._successors]
    return copy


def _copy_fields(
    op: Operation, operands: tuple[SSAValue, ...], mapper: dict[SSAValue, SSAValue]
) -> Operation:
    """
    `op` without its regions and successors, with the given operands; its
    results go to `mapper`.
    """
    new = _detached(type(op), operands, op.properties.copy(), op.attributes.copy())
    results: list[OpResult] = []
    for index, result in enumerate(op.results):
        copy = OpResult(result._type, new, index)
        copy._name = result._name  # valid: it is the original's
        mapper[result] = copy
        results.append(copy)
    if results:  # else the class default, xDSL's shared empty `SSAValues`
        new.results = SSAValues(results)
    new.location = op.location
    return new


class BlockCopier:
    """
    Copies of a run of ops of one block (`ops`), made many times: each what
    `clone_op` makes of every op with one mapper seeded for the block's
    arguments (`args`), and the copies of `outputs`. The layout is read
    once (each operand a position in the copy's list of values), so an op
    without regions or successors is copied inline, no value hashed. The
    public twin clones each op with `op.clone(mapper)`.
    """

    def __init__(
        self,
        args: Sequence[SSAValue],
        ops: Sequence[Operation],
        outputs: Sequence[SSAValue],
    ) -> None:
        self._args, self._ops, self._outputs_of = (
            tuple(args),
            tuple(ops),
            tuple(outputs),
        )
        if not _FAST:
            return
        # Keyed by `id`: an `SSAValue` hashes through a Python-level `__hash__`.
        results = [result for op in ops for result in op.results]
        defined = {id(value) for value in (*args, *results)}
        used = (*(v for op in ops for v in op._operands), *outputs)
        outside = {id(v): v for v in used if id(v) not in defined}
        self._outside = tuple(outside.values())
        self._keys: tuple[SSAValue, ...] = (*self._outside, *args, *results)
        slots = {id(value): index for index, value in enumerate(self._keys)}
        self._plan = tuple(
            (
                op,
                _picker(tuple([slots[id(v)] for v in op._operands])),
                tuple([(result._type, result._name) for result in op.results]),
                bool(op.regions or op._successors),
            )
            for op in ops
        )
        self._outputs = tuple([slots[id(value)] for value in outputs])

    def copy(
        self, seed: Sequence[SSAValue]
    ) -> tuple[list[Operation], tuple[SSAValue, ...]]:
        """
        A detached copy of each op, in order, with `seed` for the arguments;
        and the copies of the outputs.
        """
        if not _FAST:
            mapper = dict(zip(self._args, seed, strict=True))
            copies = [op.clone(mapper) for op in self._ops]
            return copies, tuple([mapper.get(v, v) for v in self._outputs_of])
        values = [*self._outside, *seed]
        ops: list[Operation] = []
        for op, pick, results, cloned in self._plan:
            if cloned:
                # The values so far: a prefix of the keys.
                copy = clone_op(op, dict(zip(self._keys, values, strict=False)))
                values.extend(copy.results)
                ops.append(copy)
                continue
            # `_detached` and `_copy_fields`, inline: one call per op, not four.
            cls = type(op)
            new = cls.__new__(cls)
            _set_operands(new, pick(values))
            new.properties = op.properties.copy()
            new.attributes = op.attributes.copy()
            # Successors, regions, parent and links: their class defaults (none).
            made: list[OpResult] = []
            for index, (type_, name) in enumerate(results):
                result = OpResult(type_, new, index)
                result._name = name  # valid: it is the original's
                made.append(result)
            if made:  # else the class default (see `_set_operands`)
                new.results = SSAValues(made)
            new.location = op.location
            values.extend(made)
            ops.append(new)
        return ops, tuple([values[slot] for slot in self._outputs])


_Picker = Callable[[list[SSAValue]], tuple[SSAValue, ...]]
"""Picks some values of a list, as a tuple."""


def _picker(slots: tuple[int, ...]) -> _Picker:
    """What picks the values at `slots` (in C, for two or more)."""
    if len(slots) > 1:
        return cast(_Picker, itemgetter(*slots))
    if slots:
        slot = slots[0]
        return lambda values: (values[slot],)
    return lambda values: ()


def create_op(
    cls: type[OpT],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: dict[str, Attribute],
    location: LocationAttr,
    *,
    attributes: Mapping[str, Attribute] = {},
    regions: Sequence[Region] = (),
) -> OpT:
    """
    What `cls.create(...)` (the public twin) makes from the same arguments,
    built directly, for ops whose operands, properties and detached
    `regions` are known to fit `cls`; absent properties and attributes with
    defaults take them, as in `create`.
    """
    if not _FAST:
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties=properties,
            attributes=attributes,
            location=location,
            regions=regions,
        )
    default_properties, default_attributes = irdl_defaults(cls)
    new = _detached(
        cls,
        tuple(operands),
        default_properties | properties,
        {**default_attributes, **attributes},
    )
    if result_types:  # else the class default (see `_set_operands`)
        new.results = SSAValues(
            [OpResult(type, new, index) for index, type in enumerate(result_types)]
        )
    new.location = location
    for region in regions:
        new.add_region(region)
    return new


def new_attribute(cls: type[_AttrT], *parameters: Attribute) -> _AttrT:
    """`cls(*parameters)` for parameters known to fit (no check; no own `__init__`)."""
    if not _FAST:
        return cls(*parameters)
    new, fields = cls.__new__(cls), cls.get_irdl_definition().parameters
    for (name, _), value in zip(fields, parameters, strict=True):
        object.__setattr__(new, name, value)
    return new


def _detached(
    cls: type[OpT],
    operands: tuple[SSAValue, ...],
    properties: dict[str, Attribute],
    attributes: dict[str, Attribute],
) -> OpT:
    """A new op of `cls` with these fields, no results, regions or successors."""
    new = cls.__new__(cls)
    _set_operands(new, operands)
    new.properties = properties
    new.attributes = attributes
    # Successors, regions, parent and links: their class defaults (none).
    return new


def insert_fresh(builder: Builder, ops: Sequence[Operation]) -> None:
    """
    `builder.insert(ops)` (the public twin) for ops this module just made:
    each linked once, without xDSL's check that the op does not contain the
    block, which walks up to the root per op.
    """
    if not ops:
        return
    if not _FAST:
        builder.insert(list(ops))
        return
    point = builder.insertion_point
    block, before = point.block, point.insert_before
    _link(block, ops, block.last_op if before is None else before.prev_op, before)
    if isinstance(builder, PatternRewriter):
        builder.has_done_action = True
    if builder.operation_insertion_handler:  # no call per op when none listens
        for op in ops:
            builder.handle_operation_insertion(op)


def discard(op: Operation) -> None:
    """
    Take `op` (detached, no regions, results unused: a copy made for a
    check) out of its operands' use lists: what `op.erase()`, the public
    twin, changes in the IR.
    """
    if not _FAST:
        op.erase()
        return
    for value, use in zip(op._operands, op._operand_uses, strict=True):
        value.remove_use(use)
    op._operands, op._operand_uses = SSAValues(), ()


def _set_operands(op: Operation, operands: tuple[SSAValue, ...]) -> None:
    """
    Give `op`, which has no operands yet, these operands and their uses
    (without any, it keeps the shared empty class defaults, as ops without
    results do: fewer objects for the collector to scan).
    """
    if not operands:
        return
    uses: list[Use] = []
    new_use = Use.__new__
    for index, value in enumerate(operands):
        # `Use(op, index)` without its `__init__`, its links left at their
        # class defaults (none) but the next; then `value.add_use(use)`,
        # inline: a use is new, so it goes first.
        use = new_use(Use)
        use._operation = op
        use._index = index
        first = value.first_use
        if first is not None:
            use._next_use = first
            first._prev_use = use
        value.first_use = use
        uses.append(use)
    op._operands = SSAValues(operands)
    op._operand_uses = tuple(uses)


def _copy_tree(
    op: Operation,
    mapper: dict[SSAValue, SSAValue],
    blocks: dict[Block, Block],
    pairs: list[tuple[Operation, Operation]],
) -> Operation:
    """`op` and its regions without operands; each (original, copy) goes to `pairs`."""
    new = _copy_fields(op, (), mapper)
    pairs.append((op, new))
    for region in op.regions:
        new_region = Region()
        new.add_region(new_region)
        for block in region.blocks:
            new_block = Block()
            blocks[block] = new_block
            new_region.add_block(new_block)
            for index, arg in enumerate(block.args):
                new_arg = new_block.insert_arg(arg.type, index, arg.location)
                new_arg._name = arg._name
                mapper[arg] = new_arg
        for block in region.blocks:
            blocks[block].add_ops(
                [_copy_tree(child, mapper, blocks, pairs) for child in block.ops]
            )
    return new


def replace_by(
    op: Operation,
    cls: type[OpT],
    properties: dict[str, Attribute],
    rewriter: PatternRewriter,
) -> OpT:
    """
    Replace `op` (no successors) by an op of class `cls` that takes over its
    operands, result types and name hints, regions, discardable attributes
    and location, with `properties`: `cls.create(...)`, then
    `rewriter.replace` (the public twin). The fast path keeps the result
    objects (no use rewritten) and tells the listeners what `replace` tells.
    """
    if not _FAST:
        new = cls.create(
            operands=op.operands,
            result_types=op.result_types,
            properties=properties,
            attributes=op.attributes,
            location=op.location,
            regions=[op.detach_region(region) for region in tuple(op.regions)],
        )
        for old_result, new_result in zip(op.results, new.results, strict=True):
            new_result.name_hint = old_result.name_hint
        rewriter.replace(op, new)
        return new
    new = _transplant(op, cls, properties)
    # In the order of `replace`: insertion, replacement, removal.
    rewriter.has_done_action = True
    rewriter.handle_operation_insertion(new)
    rewriter.handle_operation_replacement(op, new.results)
    rewriter.handle_operation_removal(op)
    return new


def _transplant(op: Operation, cls: type[OpT], properties: dict[str, Attribute]) -> OpT:
    """
    The fast `replace_by`, unnotified: `op` is left detached and empty.
    """
    new = cls.__new__(cls)
    new._operands, new._operand_uses = op._operands, op._operand_uses
    for use in new._operand_uses:
        use._operation = new
    new.results = op.results
    for result in new.results:
        result.op = new
    new.properties = properties
    new.attributes = op.attributes
    new.location = op.location
    new._successors, new._successor_uses = (), ()
    new.regions = op.regions
    for region in new.regions:
        region.parent = new
    new.parent, new._prev_op, new._next_op = op.parent, op._prev_op, op._next_op
    if new._prev_op is not None:
        new._prev_op._next_op = new
    elif new.parent is not None:
        new.parent._first_op = new
    if new._next_op is not None:
        new._next_op._prev_op = new
    elif new.parent is not None:
        new.parent._last_op = new
    op._operands, op._operand_uses = SSAValues(), ()
    op.results, op.regions, op.attributes = SSAValues(), (), {}
    op.parent = op._prev_op = op._next_op = None
    return new


def new_interpreter(
    module: ModuleOp, index_bitwidth: Literal[32, 64], listeners: tuple[Listener, ...]
) -> Interpreter:
    """
    `Interpreter(module, index_bitwidth=..., listeners=...)`, the public
    twin. The fast path attaches an error (`emit_error`) to the op that
    raised it only: xDSL's prints the module once per enclosing loop,
    quadratic in a deep nest (past the recursion limit, a `RecursionError`).
    A module nested too deeply to print is left out of the notes.
    """
    from xdsl.interpreter import Interpreter  # noqa: PLC0415 (the tools start without it)

    if not _FAST:
        return Interpreter(module, index_bitwidth=index_bitwidth, listeners=listeners)
    return Interpreter(
        module,
        index_bitwidth=index_bitwidth,
        listeners=listeners,
        _impls=_errors_at_the_failing_op()(),
    )


def call_op(interpreter: Interpreter, op: Operation, inputs: tuple[Any, ...]) -> Any:
    """
    `interpreter.call_op(op, inputs)` for an interpreter of
    `new_interpreter`; with the public twins, an error keeps only its first
    note, as with the fast path (xDSL adds one per enclosing op).
    """
    try:
        return interpreter.call_op(op, inputs)
    except Exception as error:
        notes: list[str] = getattr(error, "__notes__", [])
        if not _FAST:
            del notes[1:]
        raise


@cache
def _errors_at_the_failing_op() -> type[_InterpreterFunctionImpls]:
    """The fast path's table of implementations (see `new_interpreter`)."""
    from xdsl.interpreter import _InterpreterFunctionImpls  # noqa: PLC0415
    from xdsl.utils.exceptions import InterpretationError  # noqa: PLC0415

    class ErrorsAtTheFailingOp(_InterpreterFunctionImpls):
        def run(
            self, interpreter: Interpreter, op: Operation, args: tuple[Any, ...]
        ) -> OpImplResult:
            implementations = self._impl_dict
            if type(op) not in implementations:
                raise InterpretationError(
                    f"Could not find interpretation function for op {op.name}"
                )
            functions, implementation = implementations[type(op)]
            try:
                return implementation(functions, interpreter, op, args)
            except RecursionError:
                raise  # the nest is too deep: `run_kernel` says so
            except Exception as error:
                if getattr(error, "__notes__", None):
                    raise  # already attached to the op inside this one
                try:
                    op.emit_error("Error while interpreting op", error)
                except RecursionError as printing:
                    if printing is error:
                        raise
                    error.add_note("(the module is nested too deeply to print here)")
                    raise_at(op, error)

    return ErrorsAtTheFailingOp


def raise_at(op: Operation, error: Exception) -> NoReturn:
    """
    Raise `error` as a diagnostic about `op` without printing the module
    (`emit_error` would): the tools find `op` on the traceback, as they find
    the op of an `emit_error`.
    """
    raise error from None
