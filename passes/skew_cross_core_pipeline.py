"""
The `skew-cross-core-pipeline` pass (PyPTO's SkewCrossCorePipeline): a
`pypto.pipeline` whose body both pushes to and pops from the other core is
software-pipelined, its producer half run D iterations ahead
(`passes/mechanisms/skew.py`), or demoted to the `scf.for` it means; either
way it is no pipeline any more, so `lower-pipeline-to-slots`,
`lower-pipeline-loops` and `canonicalize-io-order` leave it alone. Run it
before them. A pipeline without a push and a pop is left to them.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.traits import IsolatedFromAbove, Pure

from passes.analysis.frontier import is_noalias
from passes.analysis.summaries import AccessKind, MemoryAccess, OpSummaries
from passes.diagnostics import fail
from passes.explain import printed_name, printed_names
from passes.mechanisms.demote import demote_to_scf_for
from passes.mechanisms.skew import Skew, skew_loop
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.collector import collector_paused
from pypto_dialect.constants import constant_int
from pypto_dialect.cores import declared_fifo_depths
from pypto_dialect.effects import CrossCoreChannel
from pypto_dialect.numbers import INDEX_MAX, index_misfit, integer_text
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import TPopOp, TPushOp
from pypto_dialect.types import TileType
from pypto_dialect.walks import ancestors, block_ops, walk_ops

SKEW_GROUP_BASE = 1 << 20
"""
The first membership group of the skewed loops of a function, as in PyPTO:
far from the groups of `lower-pipeline-loops`, which count from 0.
"""


@dataclass(frozen=True)
class Decision:
    """What the pass did with one pipeline: skewed, demoted or left it, and why."""

    action: str
    """`skewed`, `demoted` or `left alone`."""
    reason: str
    """Why, or how (for `explain`)."""


@dataclass(frozen=True)
class _Seen:
    """A pipeline as `explain` names it (its op may be gone)."""

    function: str
    induction_var: SSAValue
    stages: int
    decision: Decision

    def render(self, names: Mapping[SSAValue, str]) -> str:
        """`skew-cross-core-pipeline: @f: pypto.pipeline over %i, stages F: skewed: ...`."""
        return (
            f"skew-cross-core-pipeline: @{self.function}: {PipelineOp.name} over "
            f"{printed_name(self.induction_var, names)}, stages {self.stages}: "
            f"{self.decision.action}: {self.decision.reason}"
        )


@dataclass
class SkewCrossCorePattern(RewritePattern):
    """
    PyPTO's policy: which cross-core pipelines are skewed, at which depth;
    meant to run post-order (inner loops first), once per op.
    """

    function: str = ""
    """The function the pattern rewrites (for `explain`)."""
    names: Mapping[SSAValue, str] = field(default_factory=dict[SSAValue, str])
    """The names of the values in the input, when `explain` asks for them."""
    seen: list[_Seen] | None = None
    """Per pipeline, what was done, when `explain` asks for it."""
    fifo_depth: int | None = None
    """The depth of the FIFOs of the function's core group, if it declares one."""
    dynamic: bool = False
    """Skew loops whose bounds are values, under a runtime guard."""
    group: bool = False
    """Skew loops of several messages by running all their pushes ahead."""
    next_group: dict[Operation | None, int] = field(
        default_factory=dict[Operation | None, int]
    )
    """The next membership group of each isolated-from-above scope."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PipelineOp, rewriter: PatternRewriter) -> None:
        iv, stages = op.induction_var, op.num_stages
        decision = self._decide(op, rewriter)
        if self.seen is not None:
            self.seen.append(_Seen(self.function, iv, stages, decision))

    def _decide(self, op: PipelineOp, rewriter: PatternRewriter) -> Decision:
        body = block_ops(op.body.block)[:-1]
        pushes = [o for o in body if isinstance(o, TPushOp)]
        pops = [o for o in body if isinstance(o, TPopOp)]
        if not pushes or not pops:
            return Decision(
                "left alone", "no push and pop at the top level of its body"
            )
        if op.num_stages == 1:
            return self._demote(op, rewriter, "stages 1: nothing to skew")
        step = constant_int(op.step)
        bounds = _static_bounds(op)
        if step is None or (bounds is None and not self.dynamic):
            return self._demote(op, rewriter, "its bounds are not constants")
        if bounds is not None and bounds[1] < 2:
            return self._demote(
                op, rewriter, f"{bounds[1]} iteration(s): nothing to overlap"
            )
        messages = max(len(pushes), len(pops))
        grouped = self.group and messages > 1
        lead = next(o for o in body if isinstance(o, TPushOp | TPopOp))
        halves = _halves(op, body, pushes if grouped else [lead], self.names)
        if isinstance(halves, str):
            return self._demote(op, rewriter, halves)
        if messages > 1 and not grouped:
            return self._demote(
                op,
                rewriter,
                f"{len(pushes)} push(es) and {len(pops)} pop(s): skewing one message "
                "of several would reorder the in-order FIFO (group=true skews them all)",
            )
        if isinstance(lead, TPopOp):
            return self._demote(
                op,
                rewriter,
                "the pop comes first: the peer produces, and this loop running "
                "ahead of it waits on tiles the peer sends after ours (a deadlock)",
            )
        produce, consume = halves
        problem = _group_problem(body, produce, self.names) if grouped else None
        problem = problem or _shared_memory(produce, consume, self.names)
        if problem is not None:
            return self._demote(op, rewriter, problem)
        asked = max(2, op.num_stages - 1)
        allowed = asked
        if self.fifo_depth is not None:
            allowed = min(asked, self.fifo_depth // messages)
        if allowed == 0:
            return self._demote(
                op,
                rewriter,
                f"FIFO depth {self.fifo_depth} holds fewer than one iteration's "
                f"{messages} messages",
            )
        if bounds is None:
            depth = guarded_depth(allowed, step)
            trip = "guarded: trip >= 2*depth and a multiple of depth, else sequential"
        else:
            depth = skew_depth(allowed, bounds[1], step)
            trip = f"trip {bounds[1]}"
        lb_trip = None if bounds is None else (bounds[0], bounds[1])
        skew = Skew(produce, consume, depth, step, lb_trip)
        group = self._take_group(op)
        skew_loop(op, skew, rewriter, lambda stage, ops: _tag(ops, group, stage))
        capped = f", FIFO depth {self.fifo_depth}" if allowed < asked else ""
        together = (
            f", {len(pushes)} pushes and {len(pops)} pops together" if grouped else ""
        )
        return Decision(
            "skewed",
            f"depth {depth} (asked {asked}{capped}, {trip}{together}): "
            f"{len(produce)} op(s) produce, {len(consume)} consume",
        )

    def _demote(
        self, op: PipelineOp, rewriter: PatternRewriter, reason: str
    ) -> Decision:
        demote_to_scf_for(op, rewriter)
        return Decision("demoted", reason)

    def _take_group(self, op: PipelineOp) -> int:
        scope = next(
            (outer for outer in ancestors(op) if outer.has_trait(IsolatedFromAbove)),
            None,
        )
        group = self.next_group.get(scope, SKEW_GROUP_BASE)
        self.next_group[scope] = group + 1
        return group


def guarded_depth(asked: int, step: int) -> int:
    """The largest depth D <= `asked` whose guard's `(2*D - 1)*step` fits in `index`."""
    return next((d for d in range(asked, 1, -1) if (2 * d - 1) * step <= INDEX_MAX), 1)


def skew_depth(asked: int, trip: int, step: int) -> int:
    """
    The largest depth D <= `asked` with `trip % D == 0`, `trip >= 2*D` and
    `D*step` in `index` (1 when no larger one is).
    """
    return next(
        (
            depth
            for depth in range(min(asked, trip // 2), 1, -1)
            if trip % depth == 0 and depth * step <= INDEX_MAX
        ),
        1,
    )


def _is_cross_core(op: PipelineOp) -> bool:
    """Whether the top level of `op`'s body both pushes and pops."""
    body = block_ops(op.body.block)
    return any(isinstance(o, TPushOp) for o in body) and any(
        isinstance(o, TPopOp) for o in body
    )


def _check(op: PipelineOp) -> None:
    """Fail unless the constant bounds of a cross-core `op` fit `index` and its step is positive."""
    numbers = [constant_int(v) for v in (op.lb, op.ub, op.step)]
    for number, what in zip(
        numbers, ("lower bound", "upper bound", "step"), strict=True
    ):
        if number is not None and (misfit := index_misfit(number)) is not None:
            fail(op, f"the {what} {integer_text(number)} {misfit}")
    step = numbers[2]
    if step is not None and step <= 0:
        fail(op, f"the step must be positive, got {integer_text(step)}")


def _static_bounds(op: PipelineOp) -> tuple[int, int, int] | None:
    """The lower bound, trip count and step of `op` (`_check`ed), if constants."""
    lb, ub, step = (constant_int(v) for v in (op.lb, op.ub, op.step))
    if lb is None or ub is None or step is None:
        return None
    return lb, max(0, -((lb - ub) // step)), step


def _group_problem(
    body: Sequence[Operation],
    produce: Sequence[Operation],
    names: Mapping[SSAValue, str],
) -> str | None:
    """
    Why the pushes of `body` cannot all run ahead (`produce` is their
    backward slice): a push that needs a pop of its own iteration, or a push
    or pop nested in an op, whose order the skew cannot see.
    """
    nested = next(
        (
            o
            for o in body
            if not isinstance(o, TPushOp | TPopOp)
            and any(isinstance(n, TPushOp | TPopOp) for n in o.walk())
        ),
        None,
    )
    if nested is not None:
        return f"a push or pop nested in {nested.name}: the FIFO group is not at the top level"
    pop = next((o for o in produce if isinstance(o, TPopOp)), None)
    if pop is None:
        return None
    name = printed_name(pop.results[0], names)
    return f"a push needs {name}, popped in the same iteration: the FIFO group cannot run ahead"


def _halves(
    op: PipelineOp,
    body: Sequence[Operation],
    roots: Sequence[Operation],
    names: Mapping[SSAValue, str],
) -> tuple[list[Operation], list[Operation]] | str:
    """
    The produce half (the backward slice of `roots`) and the consume half
    (the rest, with the pure scalar ops it reads of the produce half
    recomputed), in body order; or why the loop cannot be split so.
    """
    position = {o: index for index, o in enumerate(body)}
    in_produce = [False] * len(body)
    work: list[Operation] = list(roots)
    carried_args = set(op.region_iter_args)
    while work:
        current = work.pop()
        index = position[current]
        if in_produce[index]:
            continue
        in_produce[index] = True
        for used in _uses(current):
            if used in carried_args:
                return f"the producer half reads the loop-carried {printed_name(used, names)}"
            owner = _top_level_owner(used, position)
            if owner is not None:
                work.append(owner)
    if all(in_produce):
        return "the whole body feeds the push: nothing runs behind it"
    recompute = [False] * len(body)
    consumers = [o for o, p in zip(body, in_produce, strict=True) if not p]
    terminator = op.body.block.last_op
    assert terminator is not None, "verified pipelines end in pypto.yield"
    for user in (*consumers, terminator):
        for used in _uses(user):
            owner = _top_level_owner(used, position)
            if owner is None or not in_produce[position[owner]]:
                continue
            problem = _mark_recomputable(owner, position, recompute)
            if problem is not None:
                return f"the consumer half reads {printed_name(used, names)} of the producer half ({problem})"
    produce = [o for o, p in zip(body, in_produce, strict=True) if p]
    consume = [
        o for o, p, r in zip(body, in_produce, recompute, strict=True) if not p or r
    ]
    return produce, consume


def _mark_recomputable(
    root: Operation, position: Mapping[Operation, int], marked: list[bool]
) -> str | None:
    """Mark `root` and its in-body operands for recomputation; or say why they cannot be."""
    work = [root]
    while work:
        current = work.pop()
        index = position[current]
        if marked[index]:
            continue
        if (
            current.regions
            or not current.has_trait(Pure)
            or any(isinstance(r.type, TileType) for r in current.results)
        ):
            return f"{current.name} is not a pure scalar op"
        marked[index] = True
        for used in current.operands:
            owner = _top_level_owner(used, position)
            if owner is not None:
                work.append(owner)
    return None


def _uses(op: Operation) -> list[SSAValue]:
    """The values `op` and the ops nested in it use."""
    return [used for nested in walk_ops(op) for used in nested.operands]


def _top_level_owner(
    value: SSAValue, position: Mapping[Operation, int]
) -> Operation | None:
    """The op of the body (of `position`) that defines `value`, if any."""
    if isinstance(value, OpResult) and value.op in position:
        return value.op
    return None


def _shared_memory(
    produce: Sequence[Operation],
    consume: Sequence[Operation],
    names: Mapping[SSAValue, str],
) -> str | None:
    """
    Why the halves cannot run in a new order: an op of one may touch what an
    op of the other writes (channels aside: the FIFO keeps their order), or
    has effects not known; None when they cannot conflict.
    """
    summaries = OpSummaries(windows=False)
    halves = ((produce, "producer"), (consume, "consumer"))
    accesses: list[list[tuple[Operation, MemoryAccess]]] = [[], []]
    for (ops, role), found in zip(halves, accesses, strict=True):
        for o in ops:
            known = summaries.accesses(o)
            if known is None:
                return f"{o.name} in the {role} half has unknown memory effects"
            found.extend(
                (o, a) for a in known if not isinstance(a.resource, CrossCoreChannel)
            )
    for mine, theirs in ((0, 1), (1, 0)):
        writes = _Writes()
        for o, access in accesses[mine]:
            if access.kind is AccessKind.WRITE:
                writes.add(o, access)
        for o, access in accesses[theirs]:
            writer = writes.writer(access)
            if writer is not None:
                touched = (
                    "memory"
                    if access.value is None
                    else printed_name(access.value, names)
                )
                return (
                    f"{writer.name} ({halves[mine][1]}) writes what {o.name} "
                    f"({halves[theirs][1]}) touches ({touched}, or an alias)"
                )
    return None


class _Writes:
    """The writes of a half by what they write: one lookup per access of the other."""

    def __init__(self) -> None:
        self.by_object: dict[tuple[type, SSAValue], Operation] = {}
        """A writer of each no-alias object."""
        self.aliasing: dict[type, Operation] = {}
        """Per resource kind, a writer of an object that may alias others."""
        self.any: dict[type, Operation] = {}
        """Per resource kind, a writer."""

    def add(self, op: Operation, access: MemoryAccess) -> None:
        kind = type(access.resource)
        self.any.setdefault(kind, op)
        if access.value is not None and is_noalias(access.value):
            self.by_object.setdefault((kind, access.value), op)
        else:
            self.aliasing.setdefault(kind, op)

    def writer(self, access: MemoryAccess) -> Operation | None:
        """A write that may touch what `access` does (`frontier.py`'s aliasing rule)."""
        kind = type(access.resource)
        if access.value is None or not is_noalias(access.value):
            return self.any.get(kind)
        return self.by_object.get((kind, access.value)) or self.aliasing.get(kind)


def _tag(ops: Sequence[Operation], group: int, stage: int) -> None:
    """Append `(group, stage)` to the membership of each tile-producing op but pops."""
    for root in ops:
        for nested in walk_ops(root):
            if (
                nested.regions
                or isinstance(nested, TPopOp)
                or len(nested.results) != 1
                or not isinstance(nested.results[0].type, TileType)
            ):
                continue
            old = nested.attributes.get(MEMBERSHIP_ATTR_NAME)
            nested.attributes[MEMBERSHIP_ATTR_NAME] = (
                old.appended(group, stage)
                if isinstance(old, MembershipAttr)
                else MembershipAttr([(group, stage)])
            )


@dataclass(frozen=True)
class SkewCrossCorePipelinePass(ModulePass):
    """
    Skew cross-core pipeline loops: the producer runs ahead of the consumer.

    For each `pypto.pipeline ... stages F` whose body holds a push and a pop
    (inner loops first): with one push and one pop, constant bounds, two or
    more iterations, and the backward slice of the first of them (the
    producer half) feeding the rest of the body only through the FIFO (pure
    scalar ops aside, recomputed), the producer half runs D = max(2, F-1)
    iterations ahead (the largest D' <= D that divides the trip count and
    leaves a steady loop, down to 1): a prologue of D produces, an `scf.for`
    stepping by D*step of D produces then D consumes, an epilogue of D
    consumes, each copy tagged with its own membership stage. Any other such
    loop becomes the `scf.for` it means, body unchanged. A pipeline without
    a push and a pop is left alone. Results never change. Idempotent.
    """

    name = "skew-cross-core-pipeline"

    dynamic: bool = False
    """
    Also skew the loops whose bounds are values (ours, not PyPTO's): under an
    `scf.if` that runs the skew when the trip count is at least 2*D and a
    multiple of D, and the loop as it was otherwise.
    """

    group: bool = False
    """
    Also skew the loops of several messages (ours, not PyPTO's): the backward
    slice of every push runs D iterations ahead, so each FIFO keeps its
    order; D is at most the declared FIFO depth over the messages per
    iteration. Declined when a push needs a pop of its own iteration.
    """

    explain: bool = False
    """
    Print to stderr, per pipeline, whether it was skewed (at which depth),
    demoted (and why) or left alone (values named as the input names them).
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        # Named as the input shows them: a skewed loop's values are gone after.
        names = printed_names(op) if self.explain else {}
        seen: list[_Seen] | None = [] if self.explain else None
        with collector_paused():  # see pypto_dialect.collector
            for loop in op.walk():
                if isinstance(loop, PipelineOp) and _is_cross_core(loop):
                    _check(loop)
            depths = declared_fifo_depths(op)
            for function in [f for f in op.walk() if isinstance(f, func.FuncOp)]:
                pattern = SkewCrossCorePattern(
                    function.sym_name.data,
                    names,
                    seen,
                    depths.get(function),
                    self.dynamic,
                    self.group,
                )
                PatternRewriteWalker(
                    pattern, apply_recursively=False, walk_regions_first=True
                ).rewrite_region(function.body)
        if seen:
            print("\n".join(s.render(names) for s in seen), file=sys.stderr)
