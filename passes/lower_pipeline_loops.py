"""
The `lower-pipeline-loops` pass (PyPTO's LowerPipelineLoops): replicate the
body of every `pypto.pipeline ... stages F` F times for ping-pong buffering and
tag each copy's tiles with its `(group, stage)` pair.
"""

from __future__ import annotations

import sys
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.core import OpT
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import PassFailedException

from passes.demote import demote_to_scf_for
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.tile import MatmulAccOp, MatmulOp
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.utils import constant_int, walk_ops


def _fail(op: Operation, message: str) -> NoReturn:
    op.emit_error(message, PassFailedException(message))


def _constant_step(op: PipelineOp) -> int:
    """The step of a loop to replicate, which must be a positive constant."""
    step = constant_int(op.step)
    if step is None:
        _fail(op, "step must be a compile-time integer constant")
    if step == 0:
        _fail(op, "step cannot be zero")
    if step < 0:
        _fail(op, "negative steps are not supported (scf.for needs a positive step)")
    return step


INDEX_MAX = 2**63 - 1
"""The largest `index` value (the index type has 64 bits)."""

DEFAULT_MAX_COPIES = 4096
"""The default of the pass option `max-copies`."""


def _check_membership(op: Operation) -> None:
    membership = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    if membership is not None and not isinstance(membership, MembershipAttr):
        _fail(
            op,
            f"{MEMBERSHIP_ATTR_NAME} must be a #pypto.membership attribute, "
            f"got {membership}",
        )


def _static_bounds(op: PipelineOp, step: int) -> tuple[int, int] | None:
    """The lower bound and trip count of `op` when its bounds are constants."""
    lb, ub = constant_int(op.lb), constant_int(op.ub)
    if lb is None or ub is None:
        return None
    return lb, max(0, -((lb - ub) // step))


def _body_copies(stages: int, trip: int | None) -> int:
    """
    How many copies of the body lowering a loop creates: F per main-loop
    body plus the flattened remainder (static), or F plus the F(F-1)/2 of
    the `scf.if` cascade (dynamic).
    """
    if trip is None:
        return stages + stages * (stages - 1) // 2
    main_iters, remainder = divmod(trip, stages)
    return (stages if main_iters else 0) + remainder


def _describe_copies(stages: int, trip: int | None, nested: int) -> str:
    if trip is None:
        what = (
            f"stages {stages} with a dynamic trip count: {stages} in the main loop "
            f"and {stages * (stages - 1) // 2} in the remainder cascade"
        )
    else:
        what = f"stages {stages}, trip count {trip}"
    if nested > 1:
        what += f"; each copy holds {nested} copies of the pipelines nested in it"
    return what


def _check_replication(op: PipelineOp, nested: int, max_copies: int) -> int:
    """
    Diagnose a lowering of `op` that would be too large or compute an index
    constant out of range, before any op is created. Returns the number of
    body copies it creates, counting those of the lowered pipelines nested
    in it (`nested` per copy).
    """
    step = _constant_step(op)
    stages = op.num_stages
    # Every index the lowering computes is an iteration index of the loop,
    # or below its end, or below the new step F*step: only F*step can overflow.
    if stages * step > INDEX_MAX:
        _fail(
            op,
            f"the lowered loop's step, stages * step = {stages} * {step} = "
            f"{stages * step}, overflows the 64-bit index type",
        )
    bounds = _static_bounds(op, step)
    trip = None if bounds is None else bounds[1]
    copies = _body_copies(stages, trip) * nested
    if copies > max_copies:
        _fail(
            op,
            f"lowering would create {copies} copies of the loop body "
            f"({_describe_copies(stages, trip, nested)}), more than "
            f"max-copies={max_copies}; lower `stages`, or raise the limit with "
            "lower-pipeline-loops{max-copies=N}",
        )
    return copies


def _check_module(module: ModuleOp, max_copies: int) -> None:
    """Diagnose what would make the lowering fail or explode, inner loops first."""
    nested_copies: defaultdict[Operation | None, int] = defaultdict(int)
    for op in walk_ops(module, regions_first=True):
        _check_membership(op)
        if not isinstance(op, PipelineOp):
            continue
        nested = max(1, nested_copies.pop(op, 0))
        copies = (
            _check_replication(op, nested, max_copies) if op.num_stages > 1 else nested
        )
        nested_copies[_enclosing_pipeline(op)] += copies


def _enclosing_pipeline(op: Operation) -> PipelineOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, PipelineOp):
        parent = parent.parent_op()
    return parent


def _isolated_scope(op: Operation) -> Operation | None:
    """The nearest ancestor isolated from above (usually the `func.func`)."""
    scope = op.parent_op()
    while scope is not None and not scope.has_trait(IsolatedFromAbove):
        scope = scope.parent_op()
    return scope


def _gets_membership(op: Operation, double_buffer_acc: bool) -> bool:
    """
    Whether each copy of `op` is tagged: region-free ops producing one tile,
    except cube accumulators (a matmul into `acc`) unless `double_buffer_acc`.
    """
    if op.regions or len(op.results) != 1:
        return False
    result_type = op.results[0].type
    if not isinstance(result_type, TileType):
        return False
    is_cube_accumulator = (
        isinstance(op, MatmulOp | MatmulAccOp)
        and result_type.memory_space == MemorySpace.ACC
    )
    return double_buffer_acc or not is_cube_accumulator


def _extended(membership: Attribute | None, group: int, stage: int) -> MembershipAttr:
    """`membership` with `(group, stage)` appended, or just that pair if absent."""
    if isinstance(membership, MembershipAttr):
        return membership.appended(group, stage)
    return MembershipAttr([(group, stage)])


def _with_suffix(name: str | None, suffix: str) -> str | None:
    return None if name is None else name + suffix


class _PipelineLowering:
    """
    The lowering of one `pypto.pipeline` with `stages > 1`: the bounds
    arithmetic, the main loop, the remainder, and the tagged body copies.
    New scalars go right before the loop; the loop is replaced at the end.
    Every op it creates has the loop's location (copies keep their own).
    """

    def __init__(
        self,
        op: PipelineOp,
        step: int,
        rewriter: PatternRewriter,
        take_group: Callable[[], int],
    ):
        self.op = op
        self.step = step
        self.stages = op.num_stages
        self.rewriter = rewriter
        self.take_group = take_group

        block = op.body.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp), "verified pipelines end in pypto.yield"
        self.body_args = block.args
        self.body_ops = tuple(block.ops)[:-1]
        self.yielded = terminator.arguments

        self.tile_results = tuple(
            nested.results[0]
            for top in block.ops
            for nested in walk_ops(top)
            if _gets_membership(nested, op.double_buffers_acc)
        )

        # The constant operands already hold some of the values we need.
        self.constants: dict[int, SSAValue] = {
            value: operand
            for operand in (op.lb, op.ub, op.step)
            if (value := constant_int(operand)) is not None
        }

    def located(self, op: OpT) -> OpT:
        """`op`, at the location of the loop it lowers."""
        op.location = self.op.location
        return op

    def insert_named(
        self, builder: Builder, op: Operation, name: str | None
    ) -> SSAValue:
        """Insert a single-result op at the loop's location and name its result."""
        builder.insert(self.located(op))
        op.results[0].name_hint = name
        return op.results[0]

    def constant(self, value: int) -> SSAValue:
        """An index constant before the loop, created at most once per value."""
        if value not in self.constants:
            constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self.constants[value] = self.insert_named(
                self.rewriter, constant, f"c{value}"
            )
        return self.constants[value]

    def copy_index(self, builder: Builder, base: SSAValue | int, k: int) -> SSAValue:
        """The induction variable of copy k: `base + k*step`."""
        if isinstance(base, int):
            return self.constant(base + k * self.step)
        if k == 0:
            return base
        offset = arith.AddiOp(base, self.constant(k * self.step))
        return self.insert_named(builder, offset, self.body_args[0].name_hint)

    def emit_copies(
        self,
        builder: Builder,
        base: SSAValue | int,
        carried: Sequence[SSAValue],
        count: int,
    ) -> Sequence[SSAValue]:
        """
        One region: `count` copies of the body at `builder`, copy k at index
        `base + k*step` and tagged `(group, k)` for a fresh group, the first
        seeded with `carried`. Returns the values the last copy yields.
        """
        group = self.take_group()
        for k in range(count):
            index = self.copy_index(builder, base, k)
            mapper: dict[SSAValue, SSAValue] = dict(
                zip(self.body_args, (index, *carried), strict=True)
            )
            for body_op in self.body_ops:
                builder.insert(body_op.clone(mapper))
            # Attributes are immutable: the ops of a copy share equal memberships.
            memberships: dict[Attribute | None, MembershipAttr] = {}
            for result in self.tile_results:
                clone = mapper[result].owner
                assert isinstance(clone, Operation)
                existing = clone.attributes.get(MEMBERSHIP_ATTR_NAME)
                if existing not in memberships:
                    memberships[existing] = _extended(existing, group, k)
                clone.attributes[MEMBERSHIP_ATTR_NAME] = memberships[existing]
            carried = tuple(mapper.get(value, value) for value in self.yielded)
        return carried

    def emit_main_loop(self, ub: SSAValue, *, remainder_follows: bool) -> PipelineOp:
        """The `stages 1` loop from `lb` to `ub`, step `F*step`, body F copies."""
        op = self.op
        block = Block(arg_types=[arg.type for arg in self.body_args])
        for new, old in zip(block.args, self.body_args, strict=True):
            new.name_hint = old.name_hint
        builder = Builder(InsertPoint.at_end(block))
        yielded = self.emit_copies(builder, block.args[0], block.args[1:], self.stages)
        builder.insert(self.located(YieldOp(*yielded)))
        loop = self.located(
            PipelineOp(
                op.lb,
                ub,
                self.constant(self.stages * self.step),
                op.iter_args,
                block,
                1,
                overlap_stores=op.overlaps_stores,
                double_buffer_acc=op.double_buffers_acc,
            )
        )
        loop.attributes |= op.attributes
        suffix = "_main" if remainder_follows else ""
        for new, old in zip(loop.res, op.res, strict=True):
            new.name_hint = _with_suffix(old.name_hint, suffix)
        return self.rewriter.insert(loop)

    def lower_static(self, lb: int, trip: int) -> None:
        """A main loop over whole groups of F iterations, then flattened copies."""
        if trip == 0:
            demote_to_scf_for(self.op, self.rewriter)
            return
        main_iters, remainder = divmod(trip, self.stages)
        main_end = lb + main_iters * self.stages * self.step
        results: Sequence[SSAValue] = self.op.iter_args
        if main_iters:
            # Without a remainder the main loop stops exactly where the original did.
            main_ub = self.constant(main_end) if remainder else self.op.ub
            results = self.emit_main_loop(main_ub, remainder_follows=remainder > 0).res
        if remainder:
            results = self.emit_copies(self.rewriter, main_end, results, remainder)
        self.rewriter.replace(self.op, (), results)

    def lower_dynamic(self) -> None:
        """A main loop with a runtime end, then an `scf.if` cascade on the rest."""
        op, rewriter, step, stages = self.op, self.rewriter, self.step, self.stages
        trip = self.insert_named(rewriter, arith.SubiOp(op.ub, op.lb), "unroll_diff")
        if step > 1:
            rounded = arith.AddiOp(trip, self.constant(step - 1))
            trip = self.insert_named(rewriter, rounded, "unroll_diff_rounded")
            ceil_div = arith.FloorDivSIOp(trip, self.constant(step))
            trip = self.insert_named(rewriter, ceil_div, "unroll_iters")
        clamped = arith.MaxSIOp(trip, self.constant(0))
        trip = self.insert_named(rewriter, clamped, "unroll_trip")
        main_iters = self.insert_named(
            rewriter,
            arith.FloorDivSIOp(trip, self.constant(stages)),
            "unroll_main_iters",
        )
        main_span = self.insert_named(
            rewriter,
            arith.MuliOp(main_iters, self.constant(stages * step)),
            "unroll_main_span",
        )
        main_end = self.insert_named(
            rewriter, arith.AddiOp(op.lb, main_span), "unroll_main_end"
        )
        main = self.emit_main_loop(main_end, remainder_follows=True)
        main_trip = self.insert_named(
            rewriter,
            arith.MuliOp(main_iters, self.constant(stages)),
            "unroll_main_trip",
        )
        remainder = self.insert_named(
            rewriter, arith.SubiOp(trip, main_trip), "unroll_rem"
        )
        results = self.emit_cascade(remainder, main_end, main.res)
        rewriter.replace(op, (), results)

    def emit_cascade(
        self,
        remainder: SSAValue,
        base: SSAValue,
        main_results: Sequence[SSAValue],
    ) -> Sequence[SSAValue]:
        """
        `if rem == 1 {1 copy} else {if rem == 2 {2 copies} else {...}}`, built
        from the innermost branch (the most copies) out; returns its results.
        """
        result_types = [value.type for value in main_results]
        # The ops of the else branch of the next (outer) `scf.if`: the
        # innermost one yields the main loop's results unchanged.
        else_ops: list[Operation] = (
            [self.located(scf.YieldOp(*main_results))] if main_results else []
        )
        for count in range(self.stages - 1, 0, -1):
            if count < self.stages - 1:
                else_ops.append(self.located(scf.YieldOp(*else_ops[-1].results)))
            then_block = Block()
            yielded = self.emit_copies(
                Builder(InsertPoint.at_end(then_block)), base, main_results, count
            )
            then_block.add_op(self.located(scf.YieldOp(*yielded)))
            condition = self.located(
                arith.CmpiOp(remainder, self.constant(count), "eq")
            )
            condition.result.name_hint = f"unroll_rem_eq{count}"
            else_region = [Block(else_ops)] if else_ops else None
            branch = self.located(
                scf.IfOp(condition, result_types, [then_block], else_region)
            )
            suffix = f"_rem{count}" if count > 1 else ""
            for new, old in zip(branch.output, self.op.res, strict=True):
                new.name_hint = _with_suffix(old.name_hint, suffix)
            else_ops = [condition, branch]
        self.rewriter.insert(else_ops)
        return else_ops[-1].results


@dataclass
class LowerPipelinePattern(RewritePattern):
    """
    Replicates a `pypto.pipeline` with `stages > 1`; meant to run post-order
    (inner loops first), once per op. Group ids count from 0 in each
    isolated-from-above op, in the order the regions are built. A loop whose
    lowering would create more than `max_copies` body copies is a diagnostic.
    """

    max_copies: int = DEFAULT_MAX_COPIES
    next_group: dict[Operation | None, int] = field(
        default_factory=dict[Operation | None, int]
    )

    def take_group(self, scope: Operation | None) -> int:
        group = self.next_group.get(scope, 0)
        self.next_group[scope] = group + 1
        return group

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PipelineOp, rewriter: PatternRewriter) -> None:
        if op.num_stages <= 1:
            return
        _check_replication(op, 1, self.max_copies)
        step = _constant_step(op)
        scope = _isolated_scope(op)
        lowering = _PipelineLowering(op, step, rewriter, lambda: self.take_group(scope))
        bounds = _static_bounds(op, step)
        if bounds is None:
            lowering.lower_dynamic()
        else:
            lowering.lower_static(*bounds)


@dataclass(frozen=True)
class LowerPipelineLoopsPass(ModulePass):
    """
    Replicate the body of every `pypto.pipeline ... stages F` (F > 1) F times:
    a `stages 1` main loop with step `F*step` plus the remaining iterations
    (flattened copies for static bounds, an `scf.if` cascade for dynamic
    ones); every tile-producing op of copy k gets `(group, k)` appended to
    its `pypto.pipeline_membership`. Idempotent.
    """

    name = "lower-pipeline-loops"

    max_copies: int = DEFAULT_MAX_COPIES
    """
    The most body copies the lowering of one loop may create, counting the
    copies of the lowered loops nested in it; more is a diagnostic, raised
    before any op is created.
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.max_copies < 1:
            raise PassFailedException(
                f"max-copies must be at least 1, got {self.max_copies}"
            )
        # Diagnose first, so a failure reports the input IR, not a half-lowered one.
        _check_module(op, self.max_copies)
        # Linear walks (xDSL's walker costs the nesting depth per op: cubic on
        # a lowered cascade when the pass runs again), inner loops first. The
        # pattern alone (no GreedyRewritePatternApplier), so no DCE runs.
        pipelines = [
            nested
            for nested in walk_ops(op, regions_first=True)
            if isinstance(nested, PipelineOp)
        ]
        # Each loop was checked with its nested copies: no second limit here.
        pattern = LowerPipelinePattern(max_copies=sys.maxsize)
        for pipeline in pipelines:
            pattern.match_and_rewrite(pipeline, PatternRewriter(pipeline))
