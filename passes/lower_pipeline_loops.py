"""
The `lower-pipeline-loops` pass (PyPTO's LowerPipelineLoops): replicate the
body of every `pypto.pipeline ... stages F` F times for ping-pong buffering and
tag each copy's tiles with its `(group, stage)` pair.

The replication itself is `passes.mechanisms.unroll.unroll_by_factor`; this module is
the policy: which ops get a membership, how groups are numbered, the limits.
"""

from __future__ import annotations

import dataclasses
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass, PassPipeline
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import IsolatedFromAbove
from xdsl.utils.exceptions import PassFailedException, VerifyException

from passes.diagnostics import fail
from passes.mechanisms.unroll import (
    REMAINDERS,
    Copies,
    Remainder,
    body_copies,
    flattened_iterations,
    index_constant,
    static_bounds,
    unroll_by_factor,
)
from passes.mechanisms.walker import rewrite
from pypto_dialect.allocation import BindOp
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.collector import collector_paused
from pypto_dialect.constants import constant_int
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.numbers import INDEX_MAX, index_misfit, integer_text
from pypto_dialect.pipeline import PipelineOp, PipelinePolicy
from pypto_dialect.tile import writes_accumulator
from pypto_dialect.types import TileType
from pypto_dialect.walks import ancestors, walk_ops
from pypto_dialect.xdsl_internals import block_ops, clone_op, discard

DEFAULT_MAX_COPIES = 1024
"""The default of the pass option `max-copies`."""


def _index_constant(op: PipelineOp, value: SSAValue, what: str) -> int | None:
    """
    The constant of `value` (the loop's `what`), if any, which must be an
    `index` value: xDSL takes any (our tools' verifier does not).
    """
    number = constant_int(value)
    if number is not None and (misfit := index_misfit(number)) is not None:
        fail(op, f"the {what} {integer_text(number)} {misfit}")
    return number


def _constant_step(op: PipelineOp) -> int:
    """The step of a loop to replicate, which must be a positive constant."""
    step = _index_constant(op, op.step, "step")
    if step is None:
        fail(op, "step must be a compile-time integer constant")
    if step == 0:
        fail(op, "step cannot be zero")
    if step < 0:
        fail(op, "negative steps are not supported (scf.for needs a positive step)")
    return step


def _check_membership(op: Operation) -> None:
    membership = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    if membership is not None and not isinstance(membership, MembershipAttr):
        fail(
            op,
            f"{MEMBERSHIP_ATTR_NAME} must be a #pypto.membership attribute, "
            f"got {membership}",
        )


def _check_binding(op: BindOp) -> None:
    """
    A tile bound to a declared allocation cannot be in a body that is
    replicated: every copy would put its tile on the same allocation (as in
    PyPTO, which rejects it).
    """
    replicated = next(
        (
            outer
            for outer in ancestors(op)
            if isinstance(outer, PipelineOp) and outer.num_stages > 1
        ),
        None,
    )
    if replicated is None:
        return
    fail(
        op,
        f'the tile bound to allocation "{op.declaration.label}" is in the body of a '
        f"pypto.pipeline with stages {replicated.num_stages}, whose copies would all "
        "hold their tile in it: bind tiles in loops that are not replicated "
        "(lower-pipeline-to-slots rotates a loop's loads through slots instead)",
    )


def _describe_copies(
    stages: int, trip: int | None, nested: int, remainder: Remainder
) -> str:
    if trip is None:
        rest = (
            f"{stages * (stages - 1) // 2} in the remainder cascade"
            if remainder == "cascade"
            else "1 in the remainder loop"
        )
        what = (
            f"stages {stages} with a dynamic trip count: {stages} in the main loop "
            f"and {rest}"
        )
    else:
        what = f"stages {stages}, trip count {trip}"
    if nested > 1:
        what += f"; each copy holds {nested} copies of the pipelines nested in it"
    return what


def _check_replication(
    op: PipelineOp, nested: int, max_copies: int, remainder: Remainder
) -> tuple[int, int]:
    """
    Diagnose a lowering of `op` that would be too large or compute an index
    constant out of range, before any op is created. Returns the number of
    body copies it creates, counting those of the lowered pipelines nested
    in it (`nested` per copy), and the loop's step.
    """
    step = _constant_step(op)
    _index_constant(op, op.lb, "lower bound")
    _index_constant(op, op.ub, "upper bound")
    stages = op.num_stages
    # Every index the lowering computes lies between the bounds, or below
    # F*step (docs/passes/lower-pipeline-loops.md): only F*step can overflow.
    if stages * step > INDEX_MAX:
        fail(
            op,
            f"the lowered loop's step, stages * step = {stages} * {step} = "
            f"{stages * step}, overflows the 64-bit index type",
        )
    bounds = static_bounds(op, step)
    trip = None if bounds is None else bounds[1]
    copies = body_copies(stages, trip, remainder) * nested
    if copies > max_copies:
        fail(
            op,
            f"lowering would create {copies} copies of the loop body "
            f"({_describe_copies(stages, trip, nested, remainder)}), more than "
            f"max-copies={max_copies}; lower `stages`, or raise the limit with "
            "lower-pipeline-loops{max-copies=N}",
        )
    if bounds is not None:
        lb, trip = bounds
        _check_flattened(op, flattened_iterations(lb, trip, stages, step, remainder))
    return copies, step


def _check_flattened(op: PipelineOp, iterations: range) -> None:
    """
    The ops that take the induction variable directly, verified as their
    copies at the flattened iterations (`iterations`) will be, with the index
    a constant: what the verifier of the output would reject there (a window
    out of bounds) fails the pass at the loop, before any op is created. Ops
    with regions are left out (their verifiers check no constant index), and
    so are `arith` ops (`_TYPE_ONLY`), whose copies verify as they do.
    The first and the last iteration are enough: every check of a constant
    index in the dialect's verifiers is an interval (a window inside its
    tensor, an element inside its tile, a slot of its allocation), which
    holds at every index between two at which it holds.
    """
    iv = op.induction_var
    users = [
        use.operation
        for use in iv.uses
        if not use.operation.regions and type(use.operation) not in _TYPE_ONLY
    ]
    extremes = sorted({iterations[0], iterations[-1]}) if iterations else []
    for value in extremes if users else ():
        constant = index_constant(value, op.location)
        for user in users:
            copy = clone_op(user, {iv: constant.result})
            try:
                copy.verify_()
            except VerifyException as error:
                name = "" if iv.name_hint is None else f"%{iv.name_hint} = "
                fail(
                    op,
                    f"the iteration {name}{integer_text(value)}, which the lowering "
                    f"flattens, puts {user.name} of {_accessed(user)} out of "
                    f"bounds: {error}",
                )
            finally:
                discard(copy)
        # The constant, detached and now unused, is dropped as it is.


_TYPE_ONLY = frozenset(Arith.operations)
"""
Op classes whose verifiers read the types of their operands, never the ops
that define them (xDSL 0.75's `arith`: its `verify_` methods compare types
and widths only), so that a copy with a constant for an operand verifies
exactly as the op does: `_check_flattened` skips them (the index arithmetic
of a window, the most frequent user of the induction variable).
"""


def _accessed(op: Operation) -> str:
    """How a message names what `op` accesses: its tensor, else its first operand."""
    value = op.accessed_tensor if isinstance(op, TensorWindowAccess) else op.operands[0]
    return "its operand" if value.name_hint is None else f"%{value.name_hint}"


def _check_module(
    module: ModuleOp, max_copies: int, remainder: Remainder
) -> list[tuple[PipelineOp, int]]:
    """
    Diagnose what would make the lowering fail or explode (and tiles bound
    in bodies to replicate), inner loops first; return the module's
    pipelines to replicate (`stages > 1`) in that order, each with its step.
    """
    pipelines: list[tuple[PipelineOp, int]] = []
    nested_copies: defaultdict[Operation | None, int] = defaultdict(int)
    for op in walk_ops(module, regions_first=True):
        _check_membership(op)
        if type(op) is BindOp:
            _check_binding(op)
        if not op.regions or not isinstance(op, PipelineOp):
            continue
        nested = max(1, nested_copies.pop(op, 0))
        copies = nested
        if op.num_stages > 1:
            copies, step = _check_replication(op, nested, max_copies, remainder)
            pipelines.append((op, step))
        enclosing = next(
            (outer for outer in ancestors(op) if isinstance(outer, PipelineOp)), None
        )
        nested_copies[enclosing] += copies
    return pipelines


def _gets_membership(op: Operation, policy: PipelinePolicy) -> bool:
    """
    Whether each copy of `op` is tagged: region-free ops producing one tile,
    except cube accumulators (a matmul into `acc`) unless `double_buffer_acc`.
    """
    if op.regions or len(op.results) != 1:
        return False
    if not isinstance(op.results[0].type, TileType):
        return False
    return policy.double_buffer_acc or not writes_accumulator(op)


def _extended(membership: Attribute | None, group: int, stage: int) -> MembershipAttr:
    """`membership` with `(group, stage)` appended, or just that pair if absent."""
    if isinstance(membership, MembershipAttr):
        return membership.appended(group, stage)
    return _membership(group, stage)


@lru_cache(maxsize=4096)
def _membership(group: int, stage: int) -> MembershipAttr:
    """
    The membership of just `(group, stage)`: shared (attributes are
    immutable), as group ids restart in every function.
    """
    return MembershipAttr([(group, stage)])


@dataclass
class MembershipTagger:
    """
    The annotation of `unroll_by_factor`: each region of copies takes the
    next group id of its isolated-from-above scope (usually the `func.func`),
    and copy k of it appends `(group, k)` to the membership of every tagged
    op (`_gets_membership`) of the body.
    """

    next_group: dict[Operation | None, int] = field(
        default_factory=dict[Operation | None, int]
    )

    def take_group(self, scope: Operation | None) -> int:
        group = self.next_group.get(scope, 0)
        self.next_group[scope] = group + 1
        return group

    def for_loop(self, op: PipelineOp) -> _LoopTagger:
        scope = next(
            (outer for outer in ancestors(op) if outer.has_trait(IsolatedFromAbove)),
            None,
        )
        policy = op.policy
        # One walk of the body (the loop and its terminator are never tagged);
        # an op without regions is its own walk.
        tagged = tuple(
            (index, position, nested.attributes.get(MEMBERSHIP_ATTR_NAME))
            for index, body_op in enumerate(block_ops(op.body.block))
            for position, nested in enumerate(
                walk_ops(body_op) if body_op.regions else (body_op,)
            )
            if _gets_membership(nested, policy)
        )
        return _LoopTagger(self, scope, tagged)


@dataclass(frozen=True)
class _LoopTagger:
    """`MembershipTagger` for the copies of one loop."""

    tagger: MembershipTagger
    scope: Operation | None
    tagged: Sequence[tuple[int, int, Attribute | None]]
    """
    The tagged ops of the original body, each as the index of its body op
    and its position in the walk of that op (0: the op itself), with the
    membership it had before the lowering (the original body becomes a copy
    itself).
    """

    def __call__(self, copies: Copies) -> None:
        group = self.tagger.take_group(self.scope)
        for stage, ops in enumerate(copies):
            # Attributes are immutable: the ops of a copy share equal memberships.
            memberships: dict[Attribute | None, MembershipAttr] = {}
            walks: dict[int, list[Operation]] = {}
            for index, position, original in self.tagged:
                copy = ops[index]
                if position:
                    if index not in walks:
                        walks[index] = list(walk_ops(copy))
                    copy = walks[index][position]
                if original not in memberships:
                    memberships[original] = _extended(original, group, stage)
                copy.attributes[MEMBERSHIP_ATTR_NAME] = memberships[original]


@dataclass
class LowerPipelinePattern(RewritePattern):
    """
    Replicates a `pypto.pipeline` with `stages > 1`; meant to run post-order
    (inner loops first), once per op. Group ids count from 0 in each
    isolated-from-above op, in the order the regions are built. A loop whose
    lowering would create more than `max_copies` body copies is a diagnostic.
    """

    max_copies: int = DEFAULT_MAX_COPIES
    remainder: Remainder = "cascade"
    tagger: MembershipTagger = field(default_factory=MembershipTagger)
    checked: Mapping[PipelineOp, int] = field(default_factory=dict[PipelineOp, int])
    """
    The steps of the loops already checked (`_check_module`, with their
    nested copies): the pass's; any other loop is checked here, alone.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PipelineOp, rewriter: PatternRewriter) -> None:
        if op.num_stages <= 1:
            return
        step = self.checked.get(op)
        if step is None:
            _, step = _check_replication(op, 1, self.max_copies, self.remainder)
        unroll_by_factor(
            op,
            op.num_stages,
            step,
            rewriter,
            self.tagger.for_loop(op),
            remainder=self.remainder,
        )


@dataclass(frozen=True)
class LowerPipelineLoopsPass(ModulePass):
    """
    Unroll every `pypto.pipeline` of `stages F > 1` F times, tagging the copies.

    Each becomes a `stages 1` main loop with step `F*step` and F copies of
    the body, plus the remaining iterations (`remainder`: by default
    flattened copies for static bounds and an `scf.if` cascade for dynamic
    ones, or one remainder loop); every tile-producing op of copy k gets
    `(group, k)` appended to its `pypto.pipeline_membership`. Idempotent.
    """

    name = "lower-pipeline-loops"

    max_copies: int = DEFAULT_MAX_COPIES
    """
    The most body copies the lowering of one loop may create, counting the
    copies of the lowered loops nested in it; more is a diagnostic, raised
    before any op is created.
    """

    remainder: Remainder = "cascade"
    """
    How the iterations after the main loop run: `cascade` (PyPTO's shape:
    flattened copies for static bounds, an `scf.if` per possible count for
    dynamic ones, F(F-1)/2 copies) or `loop` (one `scf.for` of the body, so
    at most F + 1 copies; a static remainder of one iteration is flattened).
    """

    auto_stages: bool = False
    """
    Each pipeline's `stages` becomes the stages advisor's choice among 1 to
    its written stages (`passes.schedule.advisor`, the bundled cost table,
    this lowering then `canonicalize-io-order` on copies of the module), with
    a remark on stderr where it changes.
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.auto_stages:
            _choose_stages(ctx, op, self)
        with collector_paused():  # see pypto_dialect.collector
            self._lower(op)

    def _lower(self, op: ModuleOp) -> None:
        if self.max_copies < 1:
            raise PassFailedException(
                f"max-copies must be at least 1, got {self.max_copies}"
            )
        if self.remainder not in REMAINDERS:
            raise PassFailedException(
                f"remainder must be one of {', '.join(REMAINDERS)}, "
                f"got {self.remainder!r:.40}"
            )
        # Diagnose first, so a failure reports the input IR, not a half-lowered
        # one. One linear walk, inner loops first.
        pipelines = _check_module(op, self.max_copies, self.remainder)
        if not pipelines:
            # Nothing to lower: no walk (xDSL's walker costs the nesting depth
            # per op: cubic on a lowered cascade when the pass runs again).
            return
        # Each loop was checked with its nested copies: no second check. Post
        # order, once per op, as the check walked; the pattern alone (no
        # GreedyRewritePatternApplier), so no DCE runs.
        pattern = LowerPipelinePattern(
            remainder=self.remainder, checked=dict(pipelines)
        )
        walker = PatternRewriteWalker(
            pattern, apply_recursively=False, walk_regions_first=True
        )
        rewrite(walker, op, [pipeline for pipeline, _ in pipelines])


def _choose_stages(
    ctx: Context, op: ModuleOp, lowering: LowerPipelineLoopsPass
) -> None:
    """`auto-stages`: the advisor's stages, with `lowering` as it is without the option."""
    # The schedule model and the canonicalization, loaded only for this option.
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass  # noqa: PLC0415
    from passes.schedule.advisor import choose_stages  # noqa: PLC0415
    from passes.schedule.engines import default_costs  # noqa: PLC0415

    fixed = dataclasses.replace(lowering, auto_stages=False)
    passes = PassPipeline((fixed, CanonicalizeIOOrderPass()))
    for remark in choose_stages(ctx, op, passes, default_costs()):
        print(remark, file=sys.stderr)
