"""
The policy of `canonicalize-io-order`: what each op is (scalar, load, tile
compute, store), the priority it is scheduled with, and the `acc` rotation of
`double_buffer_acc`.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import Enum, auto
from functools import cache
from itertools import chain
from typing import NamedTuple

from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute, Operation, OpResult
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import is_side_effect_free

from passes.analysis.summaries import never_has_effects
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr, StagePair
from pypto_dialect.pipeline import PipelinePolicy
from pypto_dialect.tile import (
    ExtractOp,
    LoadOp,
    ReadOp,
    StoreOp,
    WriteOp,
    writes_accumulator,
)
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.xdsl_internals import operands


class Category(Enum):
    """What an op does, as `(tier, sub)`: the tier orders first, `sub` within a stage."""

    SCALAR_COMPUTE = (0, 0)
    LOAD = (1, 0)
    TILE_COMPUTE = (2, 0)
    STORE = (2, 1)

    def __init__(self, tier: int, sub: int):
        self.tier = tier
        self.sub = sub

    # The members are singletons: hash them by identity, as the keys are
    # looked up by category per op (`Enum` hashes the name, in Python).
    __hash__ = object.__hash__


_OPERAND_SPACES = (MemorySpace.LEFT, MemorySpace.RIGHT)


def _space(value_type: Attribute) -> MemorySpace | None:
    return value_type.memory_space if isinstance(value_type, TileType) else None


class _Kind(Enum):
    """What the class of an op says about its category."""

    LOAD = auto()
    STORE = auto()
    EXTRACT = auto()
    """A load when it moves `mat` to `left`/`right`, else compute."""
    OTHER = auto()


@cache
def _kind(op_type: type[Operation]) -> _Kind:
    """The kind of an op class (cached: `isinstance` on xDSL's ABCs is slow)."""
    if issubclass(op_type, LoadOp | ReadOp):
        return _Kind.LOAD
    if issubclass(op_type, StoreOp | WriteOp):
        return _Kind.STORE
    if issubclass(op_type, ExtractOp):
        return _Kind.EXTRACT
    return _Kind.OTHER


@cache
def _is_scalar_type(type_class: type[Attribute]) -> bool:
    return issubclass(type_class, IndexType | IntegerType | AnyFloat)


def _is_scalar_compute(op: Operation) -> bool:
    """A region-free op without memory effects whose results are all scalars."""
    results = op.results
    if op.regions or not results:
        return False
    for result in results:  # a loop: `all` over a generator costs more, per op
        if not _is_scalar_type(type(result.type)):
            return False
    return never_has_effects(type(op)) or is_side_effect_free(op)


def classify(op: Operation, *, overlap_stores: bool = True) -> Category:
    """The category of `op`; stores are compute when `overlap_stores` is off."""
    kind = _kind(type(op))
    if kind is _Kind.OTHER:  # the most frequent first: asked per op of every block
        return (
            Category.SCALAR_COMPUTE if _is_scalar_compute(op) else Category.TILE_COMPUTE
        )
    if kind is _Kind.LOAD:
        return Category.LOAD
    if kind is _Kind.STORE:
        return Category.STORE if overlap_stores else Category.TILE_COMPUTE
    # An extract: the source and the result off the op's own tuples (IRDL's
    # accessors cost several calls each).
    source, result = operands(op)[0], op.results[0]
    if (
        _space(source.type) is MemorySpace.MAT
        and _space(result.type) in _OPERAND_SPACES
    ):
        return Category.LOAD
    return Category.TILE_COMPUTE


def membership(op: Operation) -> tuple[StagePair, ...]:
    """The `(group, stage)` pairs `op` is tagged with, innermost first."""
    attr = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    # `type() is`: the class has no subclasses, and `isinstance` on xDSL's ABCs is slow.
    return attr.data if type(attr) is MembershipAttr else ()  # `data`: no property call


def effective_membership(op: Operation) -> tuple[StagePair, ...]:
    """
    The membership of `op`, else that of its first operand defined by a tagged
    op of the same block, else empty.
    """
    if own := membership(op):
        return own
    block = op.parent
    for operand in operands(op):
        if (
            type(operand) is OpResult
            and operand.op.parent is block
            and (inherited := membership(operand.op))
        ):
            return inherited
    return ()


class ScheduleKey(NamedTuple):
    """
    The priority of an op: the ready op with the smallest key goes first,
    the earlier one among equal keys (`priority_order` breaks the ties).
    """

    tier: int
    major: tuple[int, ...]
    """The stage pairs, flattened (same order); with `double_buffer_acc`, the chunk."""
    sub: int
    minor: tuple[int, ...]
    """Empty; with `double_buffer_acc`, the innermost stage."""


def schedule_keys(
    ops: Sequence[Operation], policy: PipelinePolicy
) -> list[ScheduleKey]:
    """
    The key of each of `ops`: `(tier, stage, sub)`, or `(tier, stage // 2,
    sub, stage)` with the innermost stage under `double_buffer_acc`. Ops of
    one category and stage share one key object (a block has few of them).
    """
    overlap_stores = policy.overlap_stores
    double_buffer_acc = policy.double_buffer_acc
    # By category and the identity of the stage pairs (the tuple the
    # membership attribute holds, alive while the ops are).
    shared: dict[tuple[Category, int], ScheduleKey] = {}
    by_shape = _CATEGORY_BY_SHAPE[overlap_stores]
    keys: list[ScheduleKey] = []
    for op in ops:
        # The category of most ops follows from their class and their
        # result's type class (memoized); `classify` decides the others.
        # (Unpacked: indexing xDSL's `SSAValues` is a Python call.)
        results = op.results
        if len(results) == 1:
            (result,) = results
            shape = (type(op), type(result.type))
        elif not results:
            shape = (type(op), None)
        else:  # every result's type decides: not memoized
            shape = None
        category = None if shape is None else by_shape.get(shape)
        if category is None:
            category = classify(op, overlap_stores=overlap_stores)
            if (
                shape is not None
                and not op.regions
                and _category_follows_from_shape(shape[0])
            ):
                by_shape[shape] = category
        if category.tier != _COMPUTE_TIER:
            stage = ()
        elif type(attr := op.attributes.get(MEMBERSHIP_ATTR_NAME)) is MembershipAttr:
            stage = attr.data  # `membership`, inline: asked per op
        else:
            stage = effective_membership(op)
        key = shared.get((category, id(stage)))
        if key is None:
            key = shared[category, id(stage)] = _key(category, stage, double_buffer_acc)
        keys.append(key)
    return keys


_CATEGORY_BY_SHAPE: dict[
    bool, dict[tuple[type[Operation], type[Attribute] | None], Category]
] = {True: {}, False: {}}
"""Per `overlap_stores`: the category of a region-free op with at most one
result by its class and the type class of that result (None: no result)."""


@cache
def _category_follows_from_shape(op_type: type[Operation]) -> bool:
    """
    Whether `classify` of a region-free op of `op_type` depends only on its
    class and its result's type class: not for an extract (the memory
    spaces decide) nor an op whose class leaves its effects open.
    """
    kind = _kind(op_type)
    if kind is _Kind.OTHER:
        return never_has_effects(op_type)
    return kind is not _Kind.EXTRACT


def _key(
    category: Category, stage: tuple[StagePair, ...], double_buffer_acc: bool
) -> ScheduleKey:
    if double_buffer_acc:
        innermost = stage[0][1] if stage else -1
        return ScheduleKey(category.tier, (innermost // 2,), category.sub, (innermost,))
    return ScheduleKey(category.tier, _flattened(stage), category.sub, ())


_COMPUTE_TIER = Category.TILE_COMPUTE.tier


def _flattened(pairs: tuple[StagePair, ...]) -> tuple[int, ...]:
    """The stage pairs as one tuple."""
    return tuple(chain.from_iterable(pairs))


def rotate_acc_stages(ops: Sequence[Operation], rewriter: PatternRewriter) -> None:
    """Set the innermost stage of every matmul into `acc` to `stage mod 2`."""
    for op in ops:
        if not writes_accumulator(op):
            continue
        pairs = membership(op)
        if not pairs or pairs[0][1] < 2:
            continue
        (group, stage), *outer = pairs
        op.attributes[MEMBERSHIP_ATTR_NAME] = MembershipAttr(
            ((group, stage % 2), *outer)
        )
        rewriter.notify_op_modified(op)
