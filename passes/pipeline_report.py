"""
The schedule report of pipeline loops, and the `pipeline-report` pass that
prints it without changing anything (`pypto-report` prints the same).

For each `pypto.pipeline` of a module, the modelled schedule of its body
(`passes.analysis.timeline`) before and after a pass pipeline, per original
iteration; and the stages advisor, which re-runs the passes with each
candidate `stages` on a copy of the module. The text tables are
`passes.pipeline_report_text`; the JSON form (`report_json`) is here.

How a pipeline is found again after the passes: by location. The lowering
gives the main loop it builds the pipeline's location and the demotion to
`scf.for` keeps it, so the pipeline's loop afterwards is the first loop
(`scf.for` or `pypto.pipeline`, in program order) with the pipeline's
location. On the copy the passes run on, every pipeline without a file
location of its own (IR built in Python, or parsed without locations, or
sharing one with another pipeline) first gets a unique one.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

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
from xdsl.ir import Operation
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import (
    ArgSpecParseError,
    DiagnosticException,
    PassFailedException,
)

from passes.analysis.engines import (
    CostModel,
    CostTableError,
    Unit,
    default_costs,
    load_costs,
    static_trip_count,
)
from passes.analysis.graph import schedulable_ops
from passes.analysis.timeline import (
    MAX_TOTAL_ITERATIONS,
    MIN_ITERATIONS,
    Loop,
    LoopModel,
    Timeline,
)
from passes.io_order_policy import effective_membership
from passes.pipeline_report_text import render_advice, render_report
from passes.report_defaults import DEFAULT_PASSES, MAX_STAGES, max_stages_problem
from pypto_dialect.checked import verify_module
from pypto_dialect.constants import constant_int
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import closest, walk_ops

WITHIN_BOUND = 0.05
"""The advisor's tolerance: a candidate is good within 5% of its bound."""
DYNAMIC_TRIP = "dynamic trip count: give it with --trip N (the pass: trip=N)"
"""The note of a whole loop without a trip count."""
SHOWN_ITERATIONS = 3
"""Iterations of the loop after the passes that a trace or plot shows."""
_NO_LOCATION = StringAttr("<pipeline-report>")


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
    whole: Whole = Whole(None, None)

    def per_iteration(self, time: float) -> float:
        return time / self.copies

    @property
    def time(self) -> float:
        return self.per_iteration(self.timeline.time_per_iteration)

    @property
    def bound(self) -> float:
        return self.per_iteration(self.timeline.bound)

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
            "bottleneck": None if bottleneck is None else timeline.label(bottleneck),
            "efficiency": timeline.efficiency,
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


@dataclass(frozen=True)
class LoopReport:
    """One pipeline loop, before and (if a pipeline ran) after the passes."""

    index: int
    """The pipeline's position among the module's pipelines (program order)."""
    function: str
    location: str
    """`file:line:col`, or `#N` (N = index + 1) for a pipeline parsed without locations."""
    stages: int
    before: Figures
    after: Figures | None
    note: str = ""
    """Why `after` is missing, when a pipeline ran."""
    induction_var: str | None = None
    """The name hint of the pipeline's induction variable."""

    @property
    def name(self) -> str:
        where = f"@{self.function}: " if self.function else ""
        if not self.location.startswith("#"):
            place = f"at {self.location}"
        elif self.induction_var is not None:
            place = f"%{self.induction_var} ({self.location})"
        else:
            place = self.location
        return f"{where}pypto.pipeline {place}, stages {self.stages}"

    @property
    def speedup(self) -> float | None:
        if self.after is None or self.after.time == 0:
            return None
        return self.before.time / self.after.time

    def warnings(self) -> list[str]:
        """One message per memory space over capacity, before or after."""
        states = (("before", self.before), ("after", self.after))
        return [
            f"{state} the passes, {space} needs {peak} bytes, more than its "
            f"capacity of {figures.timeline.capacities[space]}"
            for state, figures in states
            if figures is not None
            for space, peak in figures.timeline.over_capacity.items()
        ]

    def to_json(self) -> dict[str, Any]:
        return {
            "function": self.function,
            "location": self.location,
            "induction_var": self.induction_var,
            "stages": self.stages,
            "before": self.before.to_json(),
            "after": None if self.after is None else self.after.to_json(),
            "speedup": self.speedup,
            "note": self.note,
            "warnings": self.warnings(),
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
                _NO_LOCATION, IntAttr(index + 1), IntAttr(1)
            )
        keys.append(pipeline.location)
    return copy, tuple(keys)


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


def _describe(pipeline: PipelineOp, index: int) -> tuple[str, str]:
    """The pipeline's function name and location, for the report."""
    function = closest(pipeline, func.FuncOp)
    location = pipeline.location
    where = (
        f"{location.filename.data}:{location.line.data}:{location.column.data}"
        if isinstance(location, FileLineColLoc) and location.filename != _NO_LOCATION
        else f"#{index + 1}"
    )
    return ("" if function is None else function.sym_name.data), where


def compare(
    module: ModuleOp,
    model: CostModel,
    after: tuple[ModuleOp, Sequence[LocationAttr]] | None = None,
    trip: int | None = None,
) -> list[LoopReport]:
    """
    The report of each pipeline of `module`, and of its loop in `after` (the
    output of `copy_for_passes` once the passes ran) if given; `trip` is the
    trip count of pipelines whose bounds are not constants.
    """
    reports: list[LoopReport] = []
    for index, pipeline in enumerate(pipelines(module)):
        function, location = _describe(pipeline, index)
        trips = static_trip_count(pipeline)
        trips = trip if trips is None else trips
        lowered = None if after is None else find_loop(after[0], after[1][index])
        figures = None
        if lowered is not None:
            figures = lowered_figures(pipeline, lowered, model, trips)
        shown = SHOWN_ITERATIONS * (1 if figures is None else figures.copies)
        before = loop_figures(
            LoopModel.prepare(pipeline, model),
            1,
            trips,
            min_iterations=max(MIN_ITERATIONS, 2 * shown + 1),
        )
        note = ""
        if after is not None and lowered is None:
            note = "no loop after the passes (its iterations were flattened)"
        reports.append(
            LoopReport(
                index,
                function,
                location,
                pipeline.num_stages,
                before,
                figures,
                note,
                pipeline.induction_var.name_hint,
            )
        )
    return reports


def loop_figures(
    loop: LoopModel,
    copies: int,
    trip: int | None,
    remainder: Sequence[Operation] = (),
    *,
    min_iterations: int = MIN_ITERATIONS,
) -> Figures:
    """
    The figures of a prepared loop whose iteration is `copies` original
    ones, and its whole-loop time over `trip` original iterations: the loop
    over `trip // copies` iterations, then `remainder` (the rest of the
    iterations) once the loop has drained.
    """
    timeline = loop.simulate(min_iterations=min_iterations)
    if trip is None:
        return Figures(timeline, copies, Whole(None, None, DYNAMIC_TRIP))
    if trip // copies > MAX_TOTAL_ITERATIONS:
        note = f"over {MAX_TOTAL_ITERATIONS} iterations: not simulated"
        return Figures(timeline, copies, Whole(trip, None, note))
    time = loop.total_time(trip // copies)
    if remainder:
        time += LoopModel.straight(remainder, loop.model).total_time(1)
    return Figures(timeline, copies, Whole(trip, time))


def lowered_figures(
    pipeline: PipelineOp, lowered: Loop, model: CostModel, trip: int | None
) -> Figures:
    """The figures of the loop `pipeline` became, with its remainder copies."""
    copies = _copies(pipeline, lowered)
    remainder: Sequence[Operation] = ()
    if trip is not None and trip % copies:
        remainder = remainder_ops(lowered, trip % copies)
    return loop_figures(LoopModel.prepare(lowered, model), copies, trip, remainder)


def remainder_ops(lowered: Loop, count: int) -> Sequence[Operation]:
    """
    The copies of the body that run the last `count` iterations after the
    main loop `lowered`: the flattened copies that follow it (the lowering
    tags them with a group of their own: the ops up to the last one tagged
    (or taking a tagged op's result) with the group of the first), or the `count` branch of the
    `scf.if` cascade of a dynamic trip count.
    """
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
        return following[:tagged]
    return _cascade_branch(op, count)


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


def run_report(
    ctx: Context,
    module: ModuleOp,
    model: CostModel,
    pipeline: PassPipeline | None = None,
    prepare: Callable[[ModuleOp], None] = lambda _: None,
    *,
    trip: int | None = None,
) -> list[LoopReport]:
    """
    The report of `module`'s pipelines, before and after `pipeline` (run on a
    copy: `prepare` sees the copy first, e.g. to map its ops to the source);
    `trip` is the trip count of loops with dynamic bounds.
    """
    return compare(module, model, lowered_copy(ctx, module, pipeline, prepare), trip)


def lowered_copy(
    ctx: Context,
    module: ModuleOp,
    pipeline: PassPipeline | None,
    prepare: Callable[[ModuleOp], None] = lambda _: None,
) -> tuple[ModuleOp, tuple[LocationAttr, ...]] | None:
    """A copy of `module` after `pipeline` (`copy_for_passes`), or None without one."""
    if pipeline is None:
        return None
    copy, keys = copy_for_passes(module)
    prepare(copy)
    pipeline.apply(ctx, copy)
    verify_module(copy)
    return copy, keys


# --------------------------------------------------------------------------- #
# The stages advisor
# --------------------------------------------------------------------------- #


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

    report: LoopReport
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
        if best.good:
            return (
                f"stages {best.stages} (the smallest within "
                f"{WITHIN_BOUND:.0%} of the bound that fits)"
            )
        return (
            f"stages {best.stages} (the fastest that fits; none is within "
            f"{WITHIN_BOUND:.0%} of the bound)"
        )

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
        reports: Sequence[LoopReport],
        lowered: Sequence[Sequence[Lowered]] | None = None,
    ) -> list[Advice]:
        """
        For each pipeline of `reports`: run the passes on copies of `module`
        with `stages` 1 to `max_stages` (at most its static trip count) and
        simulate the loop it becomes; `lowered` (from `lower`) saves running
        the passes again for another cost table.
        """
        lowered = self.lower(module, reports) if lowered is None else lowered
        advice: list[Advice] = []
        for report, candidates in zip(reports, lowered, strict=True):
            original = pipelines(module)[report.index]
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
        self, module: ModuleOp, reports: Sequence[LoopReport]
    ) -> list[list[Lowered]]:
        """Per pipeline of `reports`, the loop each candidate `stages` becomes."""
        lowered: list[list[Lowered]] = []
        for report in reports:
            trip = static_trip_count(pipelines(module)[report.index])
            largest = self.max_stages if trip is None else min(self.max_stages, trip)
            lowered.append(
                [
                    self._lower(module, report.index, stages)
                    for stages in range(1, max(1, largest) + 1)
                ]
            )
        return lowered

    def _lower(self, module: ModuleOp, index: int, stages: int) -> Lowered:
        copy, keys = copy_for_passes(module)
        pipelines(copy)[index].properties["stages"] = IntegerAttr(stages, i64)
        try:
            self.pipeline.apply(self.ctx, copy)
            verify_module(copy)
        except DiagnosticException as error:
            return stages, None, str(error).splitlines()[0]
        loop = find_loop(copy, keys[index])
        if loop is None:
            return stages, None, "no loop after the passes"
        return stages, loop, ""


# --------------------------------------------------------------------------- #
# JSON (the text is `passes.pipeline_report_text`)
# --------------------------------------------------------------------------- #


def report_json(
    reports: Sequence[LoopReport],
    model: CostModel,
    passes: str | None,
    advice: Sequence[Advice] = (),
) -> dict[str, Any]:
    """The report as JSON-ready data."""
    return {
        "units": "cycles per original iteration",
        "costs": model.source,
        "passes": passes,
        "loops": [report.to_json() for report in reports],
        "advisor": [entry.to_json() for entry in advice],
    }


# --------------------------------------------------------------------------- #
# The pass
# --------------------------------------------------------------------------- #


def pass_pipeline(spec: str) -> PassPipeline:
    """The pass pipeline `spec` names, from every installed xDSL universe."""
    return PassPipeline.parse_spec(Universe.get_multiverse().all_passes, spec)


@dataclass(frozen=True)
class PipelineReportPass(ModulePass):
    """
    Print the modelled schedule of every pipeline loop to stderr; change nothing.

    The schedule before and, with `passes`, after that pipeline, run on a copy.
    """

    name = "pipeline-report"

    passes: tuple[str, ...] = ()
    """The pipeline to compare with, e.g. `passes=lower-pipeline-loops,canonicalize-io-order`."""
    costs: str = ""
    """A JSON cost table (default: the bundled illustrative one)."""
    suggest_stages: bool = False
    """Also run the stages advisor (with `passes`, else the two passes)."""
    trip: int = 0
    """The trip count of loops with dynamic bounds, for the whole-loop time (0: none)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        try:
            model = load_costs(self.costs) if self.costs else default_costs()
        except CostTableError as error:
            where = error.where(self.costs)
            raise PassFailedException(
                f"pipeline-report: {where}: {error.message}"
            ) from None
        spec = ",".join(self.passes) or None
        try:
            pipeline = None if spec is None else pass_pipeline(spec)
            advisor = pass_pipeline(spec or DEFAULT_PASSES)
        except (ValueError, ArgSpecParseError) as error:
            raise PassFailedException(f"pipeline-report: passes: {error}") from None
        if not 0 <= self.trip <= MAX_TOTAL_ITERATIONS:
            raise PassFailedException(
                f"pipeline-report: trip: must be 0 to {MAX_TOTAL_ITERATIONS}"
            )
        trip = self.trip or None
        reports = run_report(ctx, op, model, pipeline, trip=trip)
        texts = [render_report(reports, model, spec)]
        if self.suggest_stages:
            advisor_run = StagesAdvisor(ctx, model, advisor, trip=trip)
            advice = advisor_run.advise(op, reports)
            texts.append(render_advice(advice))
        print("\n".join(texts).rstrip("\n"), file=sys.stderr)
