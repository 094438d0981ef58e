"""
The `canonicalize-io-order` pass.

Inside pipeline loops it reorders each block, as far as the dependences
allow, into scalars, then loads, then compute and store per stage, so the
load engine can run ahead of the compute engines. Then it turns every
`pypto.pipeline stages 1` into the `scf.for` it means.
"""

from __future__ import annotations

import heapq
import sys
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from itertools import chain
from typing import NamedTuple, TypeVar

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType, ModuleOp
from xdsl.ir import Attribute, Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import PassFailedException

from passes.analysis.dependence import DependenceGraph, OpSummaries
from passes.demote import demote_to_scf_for
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr, StagePair
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import (
    ExtractOp,
    LoadOp,
    MatmulAccOp,
    MatmulOp,
    ReadOp,
    StoreOp,
    WriteOp,
)
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.utils import walk_ops


class Category(Enum):
    """What an op does, as `(tier, sub)`: the tier orders first, `sub` within a stage."""

    SCALAR_COMPUTE = (0, 0)
    LOAD = (1, 0)
    TILE_COMPUTE = (2, 0)
    STORE = (2, 1)

    @property
    def tier(self) -> int:
        return self.value[0]

    @property
    def sub(self) -> int:
        return self.value[1]


_OPERAND_SPACES = (MemorySpace.LEFT, MemorySpace.RIGHT)


def _space(value_type: Attribute) -> MemorySpace | None:
    return value_type.memory_space if isinstance(value_type, TileType) else None


def classify(op: Operation, *, overlap_stores: bool = True) -> Category:
    """The category of `op`; stores are compute when `overlap_stores` is off."""
    if isinstance(op, LoadOp | ReadOp):
        return Category.LOAD
    if (
        isinstance(op, ExtractOp)
        and _space(op.source.type) is MemorySpace.MAT
        and _space(op.result.type) in _OPERAND_SPACES
    ):
        return Category.LOAD
    if isinstance(op, StoreOp | WriteOp):
        return Category.STORE if overlap_stores else Category.TILE_COMPUTE
    if (
        not op.regions
        and op.results
        and is_side_effect_free(op)
        and all(
            isinstance(r.type, IndexType | IntegerType | AnyFloat) for r in op.results
        )
    ):
        return Category.SCALAR_COMPUTE
    return Category.TILE_COMPUTE


def membership(op: Operation) -> tuple[StagePair, ...]:
    """The `(group, stage)` pairs `op` is tagged with, innermost first."""
    attr = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    return attr.pairs if isinstance(attr, MembershipAttr) else ()


def stage_of(op: Operation) -> tuple[StagePair, ...]:
    """
    The membership of `op`, else that of its first operand defined by a tagged
    op of the same block, else empty.
    """
    if own := membership(op):
        return own
    for operand in op.operands:
        owner = operand.owner
        if (
            isinstance(owner, Operation)
            and owner.parent is op.parent
            and (inherited := membership(owner))
        ):
            return inherited
    return ()


class ScheduleKey(NamedTuple):
    """The priority of an op: the ready op with the smallest key goes first."""

    tier: int
    major: tuple[int, ...]
    """The stage pairs, flattened (same order); with `double_buffer_acc`, the chunk."""
    sub: int
    minor: tuple[int, ...]
    """Empty; with `double_buffer_acc`, the innermost stage."""
    position: int
    """The original position: keeps the order stable among equals."""


def schedule_key(op: Operation, index: int, pipeline: PipelineOp) -> ScheduleKey:
    """
    `(tier, stage, sub, index)`, or `(tier, stage // 2, sub, stage, index)`
    with the innermost stage under `double_buffer_acc`.
    """
    category = classify(op, overlap_stores=pipeline.policy.overlap_stores)
    stage = stage_of(op) if category.tier == Category.TILE_COMPUTE.tier else ()
    if pipeline.policy.double_buffer_acc:
        innermost = stage[0][1] if stage else -1
        return ScheduleKey(
            category.tier, (innermost // 2,), category.sub, (innermost,), index
        )
    return ScheduleKey(
        category.tier, tuple(chain.from_iterable(stage)), category.sub, (), index
    )


def priority_order(graph: DependenceGraph, keys: Sequence[ScheduleKey]) -> list[int]:
    """
    A topological order of `graph` (Kahn's algorithm) that always emits the
    ready op with the smallest key; `keys[i].position` must be `i`.
    """
    waiting = [len(graph.predecessor_indices(i)) for i in range(len(keys))]
    ready = [key for key in keys if not waiting[key.position]]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        emitted = heapq.heappop(ready).position
        order.append(emitted)
        for successor in graph.successor_indices(emitted):
            waiting[successor] -= 1
            if not waiting[successor]:
                heapq.heappush(ready, keys[successor])
    if len(order) != len(keys):
        raise PassFailedException(
            f"internal error: dependence cycle among {len(keys) - len(order)} ops of "
            "a block; please report this bug"
        )
    return order


_OpT = TypeVar("_OpT", bound=Operation)


def closest(op: Operation, kind: type[_OpT]) -> _OpT | None:
    """`op` itself if it is a `kind`, else its closest `kind` ancestor."""
    current: Operation | None = op
    while current is not None and not isinstance(current, kind):
        current = current.parent_op()
    return current


def _longest_increasing(values: Sequence[int]) -> set[int]:
    """The values of a longest increasing subsequence of `values` (distinct ints)."""
    tails: list[int] = []  # tails[k]: the smallest last value of a run of k + 1
    ends: list[int] = []  # ends[k]: where in `values` that run ends
    previous: list[int | None] = []
    for position, value in enumerate(values):
        length = bisect_left(tails, value)
        previous.append(ends[length - 1] if length else None)
        if length == len(tails):
            tails.append(value)
            ends.append(position)
        else:
            tails[length], ends[length] = value, position
    kept: set[int] = set()
    position = ends[-1] if ends else None
    while position is not None:
        kept.add(values[position])
        position = previous[position]
    return kept


def _move_into_order(
    block: Block,
    ops: Sequence[Operation],
    order: Sequence[int],
    rewriter: PatternRewriter,
) -> list[int]:
    """
    Move the ops of `block` into `order`, keeping a longest run already in
    order in place (fewest moves); return the indices of the moved ops.
    """
    kept = _longest_increasing(order)
    moved: list[int] = []
    previous: Operation | None = None
    for index in order:
        op = ops[index]
        if index not in kept:
            op.detach()
            where = (
                InsertPoint.after(previous) if previous else InsertPoint.at_start(block)
            )
            rewriter.insert(op, where)
            moved.append(index)
        previous = op
    return moved


def _rotate_acc_stages(ops: Sequence[Operation], rewriter: PatternRewriter) -> None:
    """Set the innermost stage of every matmul into `acc` to `stage mod 2`."""
    for op in ops:
        if not isinstance(op, MatmulOp | MatmulAccOp):
            continue
        if _space(op.result.type) is not MemorySpace.ACC:
            continue
        pairs = membership(op)
        if not pairs or pairs[0][1] < 2:
            continue
        (group, stage), *outer = pairs
        op.attributes[MEMBERSHIP_ATTR_NAME] = MembershipAttr(
            ((group, stage % 2), *outer)
        )
        rewriter.notify_op_modified(op)


def _describe_op(op: Operation) -> str:
    names = [f"%{r.name_hint}" for r in op.results if r.name_hint is not None]
    return op.name + (f" ({', '.join(names)})" if names else "")


def explain_order(
    graph: DependenceGraph,
    keys: Sequence[ScheduleKey],
    order: Sequence[int],
    moved: Sequence[int],
) -> list[str]:
    """
    One line per op that was moved, or held back by a dependence (emitted
    after an op of larger key): `#old -> #new op: moved, held by #p op: why`,
    where `#p` is the predecessor that released it last.
    """
    position = {index: pos for pos, index in enumerate(order)}
    moved_set = set(moved)
    lines: list[str] = []
    largest: ScheduleKey | None = None
    for pos, index in enumerate(order):
        parts: list[str] = []
        if index in moved_set:
            parts.append("moved")
        if largest is not None and keys[index] < largest:
            predecessors = graph.predecessor_indices(index)
            binding = max(predecessors, key=position.__getitem__)
            reasons = "; ".join(sorted(str(r) for r in predecessors[binding]))
            parts.append(
                f"held by #{binding} {_describe_op(graph.ops[binding])}: {reasons}"
            )
        if parts:
            op = _describe_op(graph.ops[index])
            lines.append(f"  #{index} -> #{pos} {op}: {', '.join(parts)}")
        largest = keys[index] if largest is None else max(largest, keys[index])
    return lines


def _describe_block(block: Block) -> str:
    owner = block.parent_op()
    if owner is None:
        return "a detached block"
    function = closest(owner, func.FuncOp)
    where = f" in @{function.sym_name.data}" if function is not None else ""
    return f"a block of {owner.name}{where}"


@dataclass(frozen=True)
class CanonicalizeIOOrderPattern(RewritePattern):
    """
    Reorder the blocks of an op inside a pipeline loop by priority, within the
    dependences, with the policy of the innermost enclosing pipeline. Apply
    it once per op, regions first, so inner blocks are done first.
    """

    explain: bool = False
    summaries: OpSummaries = field(default_factory=OpSummaries)
    """
    Memoized across the blocks of a nest, which are analysed inside out: valid
    for one walk over one module (the pass builds a new pattern per run).
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.regions or (pipeline := closest(op, PipelineOp)) is None:
            return
        for region in op.regions:
            for block in region.blocks:
                self._reorder(block, pipeline, rewriter)

    def _reorder(
        self, block: Block, pipeline: PipelineOp, rewriter: PatternRewriter
    ) -> None:
        graph = DependenceGraph.build(block, self.summaries)
        keys = [schedule_key(op, i, pipeline) for i, op in enumerate(graph.ops)]
        order = priority_order(graph, keys)
        moved = (
            _move_into_order(block, graph.ops, order, rewriter)
            if order != list(range(len(order)))
            else []
        )
        if pipeline.policy.double_buffer_acc:
            _rotate_acc_stages(graph.ops, rewriter)
        if self.explain and (lines := explain_order(graph, keys, order, moved)):
            header = f"canonicalize-io-order: {_describe_block(block)}:"
            print(header, *lines, sep="\n", file=sys.stderr)


def check_lowered(module: ModuleOp) -> None:
    """Raise a diagnostic on the first `pypto.pipeline` with more than one stage."""
    for op in walk_ops(module):
        if isinstance(op, PipelineOp) and op.num_stages > 1:
            message = (
                f"pypto.pipeline with stages {op.num_stages} is not lowered yet: "
                "run lower-pipeline-loops first"
            )
            op.emit_error(message, PassFailedException(message))


@dataclass(frozen=True)
class CanonicalizeIOOrderPass(ModulePass):
    """
    Reorder every block inside a `pypto.pipeline` into scalars, loads, then
    compute and store per stage, as far as SSA and memory dependences allow;
    then demote every `pypto.pipeline stages 1` to `scf.for`. A pipeline with
    more than one stage is an error: run `lower-pipeline-loops` first.
    """

    name = "canonicalize-io-order"

    explain: bool = False
    """Print to stderr, per block, each op that moved or that a dependence held back."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_lowered(op)
        # Linear walks (not xDSL's walker, whose walk costs the nesting depth
        # per op): the blocks inner first, as the pattern expects.
        ops = [nested for top in op.ops for nested in walk_ops(top, regions_first=True)]
        pipelines = [nested for nested in ops if isinstance(nested, PipelineOp)]
        pattern = CanonicalizeIOOrderPattern(self.explain)
        for nested in ops:
            if nested.regions:
                pattern.match_and_rewrite(nested, PatternRewriter(nested))
        for pipeline in pipelines:
            demote_to_scf_for(pipeline, PatternRewriter(pipeline))
