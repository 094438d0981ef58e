"""
The stages advisor: which `stages` a pipeline should have, by the schedule
model. For each pipeline it runs a pass pipeline on copies of the module
with `stages` 1 to a largest value, simulates the loop each becomes
(`passes.schedule.timeline`) and picks the smallest `stages` within
`WITHIN_BOUND` of its bound that fits in memory, else the fastest that fits.

A mechanism shared by the schedule report (`passes.pipeline_report`, which
prints its candidates) and `lower-pipeline-loops{auto-stages=true}` (which
takes its choice): it knows neither. Also here: the figures of a loop per
original iteration (`Figures`), and how a pipeline is found again after the
passes (by location: the lowering gives the main loop it builds the
pipeline's location and the demotion to `scf.for` keeps it, so the
pipeline's loop afterwards is the first loop, `scf.for` or
`pypto.pipeline` in program order, with the pipeline's location; on the
copy the passes run on, every pipeline without a file location of its own
first gets a unique one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from xdsl.context import Context
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import PassPipeline
from xdsl.traits import ConstantLike, SymbolTable
from xdsl.utils.exceptions import DiagnosticException

from passes.analysis.graph import schedulable_ops
from passes.analysis.iterations import Loop
from passes.orders.category import effective_membership
from passes.schedule.defaults import (
    MAX_ADVISED_OPS,
    MAX_ADVISED_STAGES,
    MAX_STAGES,
    max_stages_problem,
)
from passes.schedule.engines import CostModel, Unit
from passes.schedule.op_costs import static_trip_count
from passes.schedule.recurrence import CycleRatio, recurrence_bound
from passes.schedule.timeline import (
    MAX_SIMULATED_ITERATIONS,
    MIN_ITERATIONS,
    LoopModel,
    NotPeriodic,
    Timeline,
)
from pypto_dialect.allocation import AllocOp
from pypto_dialect.checked import verify_module
from pypto_dialect.constants import constant_int
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import ancestors, closest, walk_ops

WITHIN_BOUND = 0.05
"""The advisor's tolerance: a candidate is good within 5% of its bound."""
DYNAMIC_TRIP = "dynamic trip count: give it with --trip N (the pass: trip=N)"
"""The note of a whole loop without a trip count."""


NO_LOCATION = StringAttr("<pipeline-report>")
"""The file name of the locations given to pipelines without one."""


@dataclass(frozen=True)
class Whole:
    """The time of a whole loop: every iteration, warm-up, drain and remainder."""

    trip: int | None
    """Original iterations (None: a dynamic trip count without `trip`)."""
    time: float | None
    """Cycles from the first op to the last (None: not simulated, see `note`)."""
    note: str = ""


@dataclass(frozen=True)
class Figures:
    """A timeline's figures per original iteration (the loop's step over `copies`)."""

    timeline: Timeline
    copies: int
    """Original iterations per iteration of the loop (F after the lowering)."""
    recurrence: CycleRatio
    """RecMII per iteration of the loop: the slowest chain of dependences into the next."""
    whole: Whole = Whole(None, None)

    def per_iteration(self, time: float) -> float:
        return time / self.copies

    @property
    def time(self) -> float:
        return self.per_iteration(self.timeline.time_per_iteration)

    @property
    def resource_bound(self) -> float:
        """ResMII: the busiest unit's time."""
        return self.per_iteration(self.timeline.bound)

    @property
    def recurrence_bound(self) -> float:
        return self.per_iteration(self.recurrence.ratio)

    @property
    def bound(self) -> float:
        """The larger of the resource and the recurrence bound."""
        return max(self.resource_bound, self.recurrence_bound)

    @property
    def efficiency(self) -> float:
        """bound / modelled time: 1 when the loop runs at its bound."""
        return 1.0 if self.time == 0 else self.bound / self.time

    @property
    def busy(self) -> dict[Unit, float]:
        return {u: self.per_iteration(t) for u, t in self.timeline.busy.items()}

    @property
    def fits(self) -> bool:
        return not self.timeline.over_capacity

    @property
    def whole_efficiency(self) -> float | None:
        """bound x trip / whole-loop time: what warm-up, drain and remainder cost."""
        whole = self.whole
        if whole.time is None or whole.trip is None:
            return None
        return 1.0 if whole.time == 0 else self.bound * whole.trip / whole.time

    def to_json(self) -> dict[str, Any]:
        timeline = self.timeline
        bottleneck = timeline.bottleneck
        return {
            "time_per_iteration": self.time,
            "bound": self.bound,
            "resource_bound": self.resource_bound,
            "recurrence_bound": self.recurrence_bound,
            "recurrence_exact": self.recurrence.exact,
            "bottleneck": None if bottleneck is None else timeline.label(bottleneck),
            "efficiency": self.efficiency,
            "busy": {timeline.label(u): t for u, t in self.busy.items()},
            "peak_bytes": {str(s): b for s, b in timeline.peak_bytes.items()},
            "over_capacity": sorted(str(s) for s in timeline.over_capacity),
            "iterations_per_loop_iteration": self.copies,
            "steady_state": "periodic" if timeline.converged else "average",
            "cores": [str(core) for core in timeline.cores],
            "whole_loop": {
                "trip": self.whole.trip,
                "time": self.whole.time,
                "efficiency": self.whole_efficiency,
                "note": self.whole.note,
            },
        }


def pipelines(module: Operation) -> list[PipelineOp]:
    """The pipelines of `module`, in program order."""
    return [op for op in walk_ops(module) if isinstance(op, PipelineOp)]


def copy_for_passes(module: ModuleOp) -> tuple[ModuleOp, tuple[LocationAttr, ...]]:
    """A copy of `module` whose pipelines have unique locations, and those locations."""
    copy = module.clone()
    keys: list[LocationAttr] = []
    for index, pipeline in enumerate(pipelines(copy)):
        if (
            not isinstance(pipeline.location, FileLineColLoc)
            or pipeline.location in keys
        ):
            pipeline.location = FileLineColLoc(
                NO_LOCATION, IntAttr(index + 1), IntAttr(1)
            )
        keys.append(pipeline.location)
    return copy, tuple(keys)


def nest_module(pipeline: PipelineOp) -> tuple[ModuleOp, int]:
    """
    A module of one function that holds a copy of the outermost pipeline
    around `pipeline` (itself if none), and `pipeline`'s index among the
    copy's pipelines: what the passes lower of it, so that a candidate costs
    its nest, not the module. The values the nest takes from outside are
    the function's arguments, but for constants and allocations, copied
    with it (bounds stay static); a function it calls is declared.
    """
    root = pipeline
    for outer in ancestors(pipeline):
        if isinstance(outer, PipelineOp):
            root = outer
    inside = set(walk_ops(root))
    block = Block()
    mapper: dict[SSAValue, SSAValue] = {}
    callees: dict[str, func.FuncOp] = {}
    for op in walk_ops(root):
        if isinstance(op, func.CallOp):
            _declare_callee(op, callees)
        for value in op.operands:
            owner = value.owner
            if (
                value in mapper
                or (owner if isinstance(owner, Operation) else owner.parent_op())
                in inside
            ):
                continue
            if isinstance(owner, Operation) and (
                owner.has_trait(ConstantLike) or isinstance(owner, AllocOp)
            ):
                block.add_op(owner.clone(value_mapper=mapper))
            else:
                mapper[value] = block.insert_arg(value.type, len(block.args))
    block.add_ops((root.clone(value_mapper=mapper), func.ReturnOp()))
    function = closest(pipeline, func.FuncOp)
    name = "nest" if function is None else function.sym_name.data
    nest = func.FuncOp(name, ([arg.type for arg in block.args], []), Region(block))
    index = pipelines(root).index(pipeline)
    return ModuleOp([*callees.values(), nest]), index


def _declare_callee(call: func.CallOp, callees: dict[str, func.FuncOp]) -> None:
    """Declare the function `call` calls, as the module declares or defines it."""
    callee = SymbolTable.lookup_symbol(call, call.callee)
    name = call.callee.string_value()
    if isinstance(callee, func.FuncOp) and name not in callees:
        kind = callee.function_type
        callees[name] = func.FuncOp.external(name, kind.inputs.data, kind.outputs.data)


def find_loop(module: ModuleOp, key: LocationAttr) -> Loop | None:
    """The first loop of `module` with location `key`."""
    return next(
        (
            op
            for op in walk_ops(module)
            if isinstance(op, scf.ForOp | PipelineOp) and op.location == key
        ),
        None,
    )


def _copies(before: PipelineOp, after: Loop) -> int:
    """Original iterations per iteration of `after`: the ratio of the steps."""
    old, new = constant_int(before.step), constant_int(after.step)
    if old is None or new is None or old <= 0 or new % old:
        return 1
    return new // old


def loop_figures(
    loop: LoopModel,
    copies: int,
    trip: int | None,
    remainder: Sequence[Operation] | Loop = (),
    *,
    min_iterations: int = MIN_ITERATIONS,
) -> Figures:
    """
    The figures of a prepared loop whose iteration is `copies` original
    ones, and its whole-loop time over `trip` original iterations: the loop
    over `trip // copies` iterations, then `remainder` (the rest of the
    iterations: ops run once, or a loop of one copy per iteration) once the
    loop has drained.
    """
    timeline = loop.simulate(min_iterations=min_iterations)
    recurrence = recurrence_bound(loop)
    if trip is None:
        return Figures(timeline, copies, recurrence, Whole(None, None, DYNAMIC_TRIP))
    try:
        time = loop.total_time(trip // copies)
    except NotPeriodic:
        note = (
            f"over {MAX_SIMULATED_ITERATIONS} iterations, not periodic: not simulated"
        )
        return Figures(timeline, copies, recurrence, Whole(trip, None, note))
    if isinstance(remainder, Loop):
        time += LoopModel.prepare(remainder, loop.model).total_time(trip % copies)
    elif remainder:
        time += LoopModel.straight(remainder, loop.model).total_time(1)
    return Figures(timeline, copies, recurrence, Whole(trip, time))


def lowered_figures(
    pipeline: PipelineOp, lowered: Loop, model: CostModel, trip: int | None
) -> Figures:
    """The figures of the loop `pipeline` became, with its remainder copies."""
    copies = _copies(pipeline, lowered)
    remainder: Sequence[Operation] | Loop = ()
    if trip is not None and trip % copies:
        remainder = remainder_loop(lowered) or remainder_ops(lowered, trip % copies)
    return loop_figures(LoopModel.prepare(lowered, model), copies, trip, remainder)


def remainder_ops(lowered: Loop, count: int) -> Sequence[Operation]:
    """
    The copies of the body that run the last `count` iterations after the
    main loop `lowered`: the flattened copies that follow it (the lowering
    tags them with a group of their own: the ops up to the last one tagged
    (or taking a tagged op's result) with the group of the first), or the `count` branch of the
    `scf.if` cascade of a dynamic trip count.
    """
    copies, cascade = _remainder(lowered)
    return copies if cascade is None else _cascade_branch(cascade, count)


def remainder_extent(lowered: Loop) -> Sequence[Operation]:
    """
    The ops after the main loop `lowered` that run its remaining iterations,
    whatever their count: the remainder loop, the flattened copies, or the
    whole `scf.if` cascade.
    """
    if (loop := remainder_loop(lowered)) is not None:
        return (loop,)
    copies, cascade = _remainder(lowered)
    return copies if cascade is None else (cascade,)


def _remainder(lowered: Loop) -> tuple[Sequence[Operation], scf.IfOp | None]:
    """The flattened copies that follow `lowered`, or else the `scf.if` cascade."""
    group: int | None = None
    following: list[Operation] = []
    tagged = 0
    op = lowered.next_op
    while op is not None and not (group is None and isinstance(op, scf.IfOp)):
        if pairs := effective_membership(op):
            if group is not None and pairs[0][0] != group:
                break
            group = pairs[0][0]
            tagged = len(following) + 1
        following.append(op)
        op = op.next_op
    if group is not None or not isinstance(op, scf.IfOp):
        return following[:tagged], None
    return (), op


def remainder_loop(lowered: Loop) -> scf.ForOp | None:
    """
    The `scf.for` that runs the iterations after the main loop `lowered`
    (`lower-pipeline-loops{remainder=loop}`): the next loop of the block
    with `lowered`'s location, if only index arithmetic comes between.
    """
    op = lowered.next_op
    while isinstance(op, arith.ConstantOp):
        op = op.next_op
    if isinstance(op, scf.ForOp) and op.location == lowered.location:
        return op
    return None


def _cascade_branch(branch: scf.IfOp, count: int) -> Sequence[Operation]:
    """The ops of the `rem == count` branch of a cascade (`unroll.emit_cascade`)."""
    while True:
        condition = branch.cond.owner
        if not isinstance(condition, arith.CmpiOp):
            return ()
        if constant_int(condition.rhs) == count:
            return schedulable_ops(branch.true_region.block)
        nested = [op for op in branch.false_region.ops if isinstance(op, scf.IfOp)]
        if not nested:
            return ()
        branch = nested[0]


class AdvisedLoop(Protocol):
    """A pipeline the advisor is asked about (e.g. the report's `LoopReport`)."""

    @property
    def index(self) -> int:
        """The pipeline's position among the module's pipelines (program order)."""
        ...

    @property
    def name(self) -> str: ...

    @property
    def function(self) -> str: ...

    @property
    def location(self) -> str: ...

    @property
    def stages(self) -> int: ...


@dataclass(frozen=True)
class Candidate:
    """One `stages` value the advisor tried, and how it performed."""

    stages: int
    figures: Figures | None
    note: str = ""
    """Why there are no figures (a diagnostic, or no loop after the passes)."""

    @property
    def good(self) -> bool:
        """Within `WITHIN_BOUND` of its bound, with every memory space fitting."""
        figures = self.figures
        return (
            figures is not None
            and figures.fits
            and figures.time <= figures.bound * (1 + WITHIN_BOUND)
        )


@dataclass(frozen=True)
class Advice:
    """The advisor's candidates for one pipeline, and its answer."""

    report: AdvisedLoop
    candidates: tuple[Candidate, ...]

    @property
    def suggestion(self) -> Candidate | None:
        """The smallest good `stages`, else the fastest that fits, else None."""
        good = [c for c in self.candidates if c.good]
        if good:
            return good[0]
        fitting = [c for c in self.candidates if c.figures and c.figures.fits]
        return min(fitting, key=_time, default=None)

    def answer(self) -> str:
        best = self.suggestion
        if best is None:
            return "no candidate fits in memory"
        return f"stages {best.stages} ({self.reason(best)})"

    @staticmethod
    def reason(best: Candidate) -> str:
        """Why `best` is the suggestion."""
        if best.good:
            return f"the smallest within {WITHIN_BOUND:.0%} of the bound that fits"
        return f"the fastest that fits; none is within {WITHIN_BOUND:.0%} of the bound"

    def to_json(self) -> dict[str, Any]:
        best = self.suggestion
        return {
            "location": self.report.location,
            "function": self.report.function,
            "stages": self.report.stages,
            "suggestion": None if best is None else best.stages,
            "answer": self.answer(),
            "candidates": [
                {
                    "stages": c.stages,
                    "note": c.note,
                    "good": c.good,
                    **({} if c.figures is None else c.figures.to_json()),
                }
                for c in self.candidates
            ],
        }


def _time(candidate: Candidate) -> float:
    return float("inf") if candidate.figures is None else candidate.figures.time


Lowered = tuple[int, Loop | None, str]
"""A candidate `stages`, the loop it becomes (None if none) and why not."""


@dataclass(frozen=True)
class StagesAdvisor:
    """
    Tries `stages` 1 to `max_stages` (1 to `MAX_ADVISED_STAGES`, else
    `ValueError`) for each pipeline, with `pipeline`.
    """

    ctx: Context
    model: CostModel
    pipeline: PassPipeline
    max_stages: int = MAX_STAGES
    trip: int | None = None
    """The trip count of pipelines with dynamic bounds (for the whole-loop time)."""

    def __post_init__(self):
        if (problem := max_stages_problem(self.max_stages)) is not None:
            raise ValueError(problem)

    def advise(
        self,
        module: ModuleOp,
        reports: Sequence[AdvisedLoop],
        lowered: Sequence[Sequence[Lowered]] | None = None,
    ) -> list[Advice]:
        """
        For each pipeline of `reports`: run the passes on copies of `module`
        with `stages` 1 to `max_stages` (at most its static trip count) and
        simulate the loop it becomes; `lowered` (from `lower`) saves running
        the passes again for another cost table.
        """
        lowered = self.lower(module, reports) if lowered is None else lowered
        found = pipelines(module)
        advice: list[Advice] = []
        for report, candidates in zip(reports, lowered, strict=True):
            original = found[report.index]
            trip = static_trip_count(original)
            trip = self.trip if trip is None else trip
            advice.append(
                Advice(
                    report,
                    tuple(
                        Candidate(
                            stages,
                            None
                            if loop is None
                            else lowered_figures(original, loop, self.model, trip),
                            note,
                        )
                        for stages, loop, note in candidates
                    ),
                )
            )
        return advice

    def lower(
        self, module: ModuleOp, reports: Sequence[AdvisedLoop]
    ) -> list[list[Lowered]]:
        """Per pipeline of `reports`, the loop each candidate `stages` becomes."""
        found = pipelines(module)
        lowered: list[list[Lowered]] = []
        for report in reports:
            trip = static_trip_count(found[report.index])
            largest = self.max_stages if trip is None else min(self.max_stages, trip)
            nest, index = nest_module(found[report.index])
            candidates: list[Lowered] = []
            spent = 0
            for stages in range(1, max(1, largest) + 1):
                if spent > MAX_ADVISED_OPS:
                    candidates.append((stages, None, _over_budget(spent)))
                    continue
                candidate, ops = self._lower(nest, index, stages)
                candidates.append(candidate)
                spent += ops
            lowered.append(candidates)
        return lowered

    def _lower(self, nest: ModuleOp, index: int, stages: int) -> tuple[Lowered, int]:
        """The candidate `stages`, and the ops its copy holds after the passes."""
        copy, keys = copy_for_passes(nest)
        pipelines(copy)[index].properties["stages"] = IntegerAttr(stages, i64)
        try:
            self.pipeline.apply(self.ctx, copy)
            verify_module(copy)
        except DiagnosticException as error:
            return (stages, None, str(error).splitlines()[0]), 0
        ops = sum(1 for _ in walk_ops(copy))
        loop = find_loop(copy, keys[index])
        if loop is None:
            return (stages, None, "no loop after the passes"), ops
        return (stages, loop, ""), ops


def _over_budget(spent: int) -> str:
    return (
        f"not tried: the smaller stages lowered {spent:,} ops, past the "
        f"advisor's budget of {MAX_ADVISED_OPS:,}"
    )


# --------------------------------------------------------------------------- #
# lower-pipeline-loops{auto-stages=true}
# --------------------------------------------------------------------------- #


def describe(pipeline: PipelineOp, index: int) -> tuple[str, str]:
    """The function name and location of the `index`-th pipeline, `pipeline`."""
    function = closest(pipeline, func.FuncOp)
    location = pipeline.location
    where = (
        f"{location.filename.data}:{location.line.data}:{location.column.data}"
        if isinstance(location, FileLineColLoc) and location.filename != NO_LOCATION
        else f"#{index + 1}"
    )
    return ("" if function is None else function.sym_name.data), where


def loop_name(function: str, location: str, induction_var: str | None) -> str:
    """How the report and the remarks name a pipeline (`describe`'s function and location)."""
    where = f"@{function}: " if function else ""
    if not location.startswith("#"):
        place = f"at {location}"
    elif induction_var is not None:
        place = f"%{induction_var} ({location})"
    else:
        place = location
    return f"{where}pypto.pipeline {place}"


@dataclass(frozen=True)
class _Written:
    """A pipeline as written, as the advisor is asked about it."""

    index: int
    function: str
    location: str
    stages: int
    name: str


def choose_stages(
    ctx: Context, module: ModuleOp, passes: PassPipeline, model: CostModel
) -> list[str]:
    """
    Set each pipeline's `stages` (of more than 1) to the advisor's choice
    among 1 to its written stages (at most `MAX_ADVISED_STAGES`), with `passes` on the copies, in program
    order (a pipeline nested in another is tried with the outer one's
    choice made); keep the written stages where nothing fits. A remark per
    pipeline whose stages changed, with why.
    """
    remarks: list[str] = []
    for index, pipeline in enumerate(pipelines(module)):
        written = pipeline.num_stages
        if written <= 1:
            continue
        function, location = describe(pipeline, index)
        name = loop_name(function, location, pipeline.induction_var.name_hint)
        loop = _Written(index, function, location, written, name)
        tried = min(written, MAX_ADVISED_STAGES)
        advisor = StagesAdvisor(ctx, model, passes, max_stages=tried)
        (advice,) = advisor.advise(module, [loop])
        best = advice.suggestion
        if best is None or best.figures is None or best.stages == written:
            continue
        pipeline.properties["stages"] = IntegerAttr(best.stages, i64)
        figures = best.figures
        than = next(
            (
                f" against {c.figures.time:.1f} at stages {written}"
                for c in advice.candidates
                if c.stages == written and c.figures is not None
            ),
            "",
        )
        remarks.append(
            f"lower-pipeline-loops: remark: {name}: stages {written} -> "
            f"{best.stages} ({Advice.reason(best)}): {figures.time:.1f} "
            f"cycles per iteration{than}, bound {figures.bound:.1f}"
        )
    return remarks
