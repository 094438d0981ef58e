"""
The `lower-pipeline-loops` pass (PyPTO's LowerPipelineLoops): replicate the
body of every `pypto.pipeline ... stages F` F times for ping-pong buffering and
tag each copy's tiles with its `(group, stage)` pair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
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


def _check(op: Operation) -> None:
    """Diagnose what would make the lowering of `op` fail."""
    if isinstance(op, PipelineOp) and op.num_stages > 1:
        _constant_step(op)
    membership = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    if membership is not None and not isinstance(membership, MembershipAttr):
        _fail(
            op,
            f"{MEMBERSHIP_ATTR_NAME} must be a #pypto.membership attribute, "
            f"got {membership}",
        )


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


def _insert_named(builder: Builder, op: Operation, name: str | None) -> SSAValue:
    """Insert a single-result op and name its result."""
    builder.insert(op)
    op.results[0].name_hint = name
    return op.results[0]


def _with_suffix(name: str | None, suffix: str) -> str | None:
    return None if name is None else name + suffix


class _PipelineLowering:
    """
    The lowering of one `pypto.pipeline` with `stages > 1`: the bounds
    arithmetic, the main loop, the remainder, and the tagged body copies.
    New scalars go right before the loop; the loop is replaced at the end.
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

    def constant(self, value: int) -> SSAValue:
        """An index constant before the loop, created at most once per value."""
        if value not in self.constants:
            constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
            self.constants[value] = _insert_named(self.rewriter, constant, f"c{value}")
        return self.constants[value]

    def copy_index(self, builder: Builder, base: SSAValue | int, k: int) -> SSAValue:
        """The induction variable of copy k: `base + k*step`."""
        if isinstance(base, int):
            return self.constant(base + k * self.step)
        if k == 0:
            return base
        offset = arith.AddiOp(base, self.constant(k * self.step))
        return _insert_named(builder, offset, self.body_args[0].name_hint)

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
        builder.insert(YieldOp(*yielded))
        loop = PipelineOp(
            op.lb,
            ub,
            self.constant(self.stages * self.step),
            op.iter_args,
            block,
            1,
            overlap_stores=op.overlaps_stores,
            double_buffer_acc=op.double_buffers_acc,
        )
        loop.attributes |= op.attributes
        suffix = "_main" if remainder_follows else ""
        for new, old in zip(loop.res, op.res, strict=True):
            new.name_hint = _with_suffix(old.name_hint, suffix)
        return self.rewriter.insert(loop)

    def lower_static(self, lb: int, ub: int) -> None:
        """A main loop over whole groups of F iterations, then flattened copies."""
        trip = max(0, -((lb - ub) // self.step))
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
        trip = _insert_named(rewriter, arith.SubiOp(op.ub, op.lb), "unroll_diff")
        if step > 1:
            rounded = arith.AddiOp(trip, self.constant(step - 1))
            trip = _insert_named(rewriter, rounded, "unroll_diff_rounded")
            ceil_div = arith.FloorDivSIOp(trip, self.constant(step))
            trip = _insert_named(rewriter, ceil_div, "unroll_iters")
        clamped = arith.MaxSIOp(trip, self.constant(0))
        trip = _insert_named(rewriter, clamped, "unroll_trip")
        main_iters = _insert_named(
            rewriter,
            arith.FloorDivSIOp(trip, self.constant(stages)),
            "unroll_main_iters",
        )
        main_span = _insert_named(
            rewriter,
            arith.MuliOp(main_iters, self.constant(stages * step)),
            "unroll_main_span",
        )
        main_end = _insert_named(
            rewriter, arith.AddiOp(op.lb, main_span), "unroll_main_end"
        )
        main = self.emit_main_loop(main_end, remainder_follows=True)
        main_trip = _insert_named(
            rewriter,
            arith.MuliOp(main_iters, self.constant(stages)),
            "unroll_main_trip",
        )
        remainder = _insert_named(rewriter, arith.SubiOp(trip, main_trip), "unroll_rem")
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
        else_ops: list[Operation] = [scf.YieldOp(*main_results)] if main_results else []
        for count in range(self.stages - 1, 0, -1):
            if count < self.stages - 1:
                else_ops.append(scf.YieldOp(*else_ops[-1].results))
            then_block = Block()
            yielded = self.emit_copies(
                Builder(InsertPoint.at_end(then_block)), base, main_results, count
            )
            then_block.add_op(scf.YieldOp(*yielded))
            condition = arith.CmpiOp(remainder, self.constant(count), "eq")
            condition.result.name_hint = f"unroll_rem_eq{count}"
            else_region = [Block(else_ops)] if else_ops else None
            branch = scf.IfOp(condition, result_types, [then_block], else_region)
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
    isolated-from-above op, in the order the regions are built.
    """

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
        step = _constant_step(op)
        scope = _isolated_scope(op)
        lowering = _PipelineLowering(op, step, rewriter, lambda: self.take_group(scope))
        lb, ub = constant_int(op.lb), constant_int(op.ub)
        if lb is None or ub is None:
            lowering.lower_dynamic()
        else:
            lowering.lower_static(lb, ub)


@dataclass(frozen=True)
class LowerPipelineLoopsPass(ModulePass):
    """
    Replicate the body of every `pypto.pipeline ... stages F` (F > 1) F times:
    a `stages 1` main loop with step `F*step` plus the remaining iterations
    (flattened copies for static bounds, an `scf.if` cascade for dynamic
    ones); every tile-producing op of copy k gets `(group, k)` appended to
    its `pypto.pipeline_membership`. Idempotent; no options.
    """

    name = "lower-pipeline-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Diagnose first, so a failure reports the input IR, not a half-lowered one.
        for nested in walk_ops(op):
            _check(nested)
        # Linear walks (xDSL's walker costs the nesting depth per op: cubic on
        # a lowered cascade when the pass runs again), inner loops first. The
        # pattern alone (no GreedyRewritePatternApplier), so no DCE runs.
        pipelines = [
            nested
            for nested in walk_ops(op, regions_first=True)
            if isinstance(nested, PipelineOp)
        ]
        pattern = LowerPipelinePattern()
        for pipeline in pipelines:
            pattern.match_and_rewrite(pipeline, PatternRewriter(pipeline))
