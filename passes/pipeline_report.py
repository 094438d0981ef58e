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
from functools import cached_property
from typing import Any

from xdsl.context import Context
from xdsl.dialects import func, scf
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
    Engine,
    default_costs,
    load_costs,
    static_trip_count,
)
from passes.analysis.recurrence import CycleRatio, recurrence_bound
from passes.analysis.timeline import MIN_ITERATIONS, Loop, Timeline, simulate
from passes.pipeline_report_text import render_advice, render_report
from pypto_dialect.checked import verify_module
from pypto_dialect.constants import constant_int
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import closest, walk_ops

DEFAULT_PASSES = "lower-pipeline-loops,canonicalize-io-order"
"""The pipeline the advisor runs when none is given."""
WITHIN_BOUND = 0.05
"""The advisor's tolerance: a candidate is good within 5% of its bound."""
MAX_STAGES = 8
"""The largest `stages` the advisor tries by default."""
SHOWN_ITERATIONS = 3
"""Iterations of the loop after the passes that a trace or plot shows."""
_NO_LOCATION = StringAttr("<pipeline-report>")


@dataclass(frozen=True)
class Figures:
    """A timeline's figures per original iteration (the loop's step over `copies`)."""

    timeline: Timeline
    copies: int
    """Original iterations per iteration of the loop (F after the lowering)."""

    def per_iteration(self, time: float) -> float:
        return time / self.copies

    @property
    def time(self) -> float:
        return self.per_iteration(self.timeline.time_per_iteration)

    @property
    def resource_bound(self) -> float:
        """ResMII: the busiest engine's time."""
        return self.per_iteration(self.timeline.bound)

    @cached_property
    def recurrence(self) -> CycleRatio:
        """RecMII per loop iteration: the slowest chain of dependences into the next."""
        return recurrence_bound(self.timeline.loop, self.timeline.steps)

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
    def busy(self) -> dict[Engine, float]:
        return {e: self.per_iteration(t) for e, t in self.timeline.busy.items()}

    @property
    def fits(self) -> bool:
        return not self.timeline.over_capacity

    def to_json(self) -> dict[str, Any]:
        timeline = self.timeline
        return {
            "time_per_iteration": self.time,
            "bound": self.bound,
            "resource_bound": self.resource_bound,
            "recurrence_bound": self.recurrence_bound,
            "recurrence_exact": self.recurrence.exact,
            "bottleneck": timeline.bottleneck,
            "efficiency": self.efficiency,
            "busy": {str(e): t for e, t in self.busy.items()},
            "peak_bytes": {str(s): b for s, b in timeline.peak_bytes.items()},
            "over_capacity": sorted(str(s) for s in timeline.over_capacity),
            "iterations_per_loop_iteration": self.copies,
            "steady_state": "periodic" if timeline.converged else "average",
        }


@dataclass(frozen=True)
class LoopReport:
    """One pipeline loop, before and (if a pipeline ran) after the passes."""

    index: int
    """The pipeline's position among the module's pipelines (program order)."""
    function: str
    location: str
    stages: int
    before: Figures
    after: Figures | None
    note: str = ""
    """Why `after` is missing, when a pipeline ran."""

    @property
    def name(self) -> str:
        where = f"@{self.function}: " if self.function else ""
        return f"{where}pypto.pipeline at {self.location}, stages {self.stages}"

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
) -> list[LoopReport]:
    """
    The report of each pipeline of `module`, and of its loop in `after` (the
    output of `copy_for_passes` once the passes ran) if given.
    """
    reports: list[LoopReport] = []
    for index, pipeline in enumerate(pipelines(module)):
        function, location = _describe(pipeline, index)
        lowered = None if after is None else find_loop(after[0], after[1][index])
        figures = None
        if lowered is not None:
            figures = Figures(simulate(lowered, model), _copies(pipeline, lowered))
        shown = SHOWN_ITERATIONS * (1 if figures is None else figures.copies)
        before = Figures(
            simulate(pipeline, model, min_iterations=max(MIN_ITERATIONS, shown + 1)),
            1,
        )
        note = ""
        if after is not None and lowered is None:
            note = "no loop after the passes (its iterations were flattened)"
        reports.append(
            LoopReport(
                index, function, location, pipeline.num_stages, before, figures, note
            )
        )
    return reports


def run_report(
    ctx: Context,
    module: ModuleOp,
    model: CostModel,
    pipeline: PassPipeline | None = None,
    prepare: Callable[[ModuleOp], None] = lambda _: None,
) -> list[LoopReport]:
    """
    The report of `module`'s pipelines, before and after `pipeline` (run on a
    copy: `prepare` sees the copy first, e.g. to map its ops to the source).
    """
    if pipeline is None:
        return compare(module, model)
    copy, keys = copy_for_passes(module)
    prepare(copy)
    pipeline.apply(ctx, copy)
    verify_module(copy)
    return compare(module, model, (copy, keys))


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


@dataclass(frozen=True)
class StagesAdvisor:
    """Tries `stages` 1 to `max_stages` for each pipeline, with `pipeline`."""

    ctx: Context
    model: CostModel
    pipeline: PassPipeline
    max_stages: int = MAX_STAGES

    def advise(self, module: ModuleOp, reports: Sequence[LoopReport]) -> list[Advice]:
        """
        For each pipeline of `reports`: run the passes on copies of `module`
        with `stages` 1 to `max_stages` (at most its static trip count) and
        simulate the loop it becomes.
        """
        advice: list[Advice] = []
        for report in reports:
            trip = static_trip_count(pipelines(module)[report.index])
            largest = self.max_stages if trip is None else min(self.max_stages, trip)
            candidates = tuple(
                self._candidate(module, report.index, stages)
                for stages in range(1, max(1, largest) + 1)
            )
            advice.append(Advice(report, candidates))
        return advice

    def _candidate(self, module: ModuleOp, index: int, stages: int) -> Candidate:
        copy, keys = copy_for_passes(module)
        pipelines(copy)[index].properties["stages"] = IntegerAttr(stages, i64)
        try:
            self.pipeline.apply(self.ctx, copy)
            verify_module(copy)
        except DiagnosticException as error:
            return Candidate(stages, None, str(error).splitlines()[0])
        loop = find_loop(copy, keys[index])
        if loop is None:
            return Candidate(stages, None, "no loop after the passes")
        copies = _copies(pipelines(module)[index], loop)
        return Candidate(stages, Figures(simulate(loop, self.model), copies))


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
    Print the modelled schedule of every pipeline loop to stderr (before and,
    with `passes`, after that pipeline, run on a copy); change nothing.
    """

    name = "pipeline-report"

    passes: tuple[str, ...] = ()
    """The pipeline to compare with, e.g. `passes=lower-pipeline-loops,canonicalize-io-order`."""
    costs: str = ""
    """A JSON cost table (default: the bundled illustrative one)."""
    suggest_stages: bool = False
    """Also run the stages advisor (with `passes`, else the two passes)."""

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
        reports = run_report(ctx, op, model, pipeline)
        texts = [render_report(reports, model, spec)]
        if self.suggest_stages:
            advice = StagesAdvisor(ctx, model, advisor).advise(op, reports)
            texts.append(render_advice(advice))
        print("\n".join(texts).rstrip("\n"), file=sys.stderr)
