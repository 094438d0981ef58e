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
from dataclasses import dataclass, field
from typing import Any, Protocol, cast

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntegerAttr,
    ModuleOp,
    i64,
)
from xdsl.ir import Operation
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import DiagnosticException

from passes.analysis.iterations import Loop
from passes.schedule.defaults import (
    MAX_ADVISED_DEPTH,
    MAX_ADVISED_OPS,
    MAX_ADVISED_STAGES,
    MAX_AUTO_STAGES_OPS,
    MAX_STAGES,
    max_stages_problem,
)
from passes.schedule.engines import CostModel
from passes.schedule.lowered import (
    NO_LOCATION,
    Figures,
    copy_for_passes,
    find_loop,
    lowered_figures,
    nest_module,
    pipelines,
)
from passes.schedule.op_costs import static_trip_count
from passes.schedule.timeline import LoopModel
from pypto_dialect.checked import verify_module
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import ancestors, closest, walk_ops

WITHIN_BOUND = 0.05
"""The advisor's tolerance: a candidate is good within 5% of its bound."""


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
    prepared: dict[Loop, LoopModel] = field(
        default_factory=dict[Loop, LoopModel], compare=False, repr=False
    )
    """
    The models of the loops simulated so far, shared with the copies that
    `dataclasses.replace` makes for other cost tables (`sensitivity`).
    """

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
                            else lowered_figures(
                                original, loop, self.model, trip, self.prepared
                            ),
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
        budget = MAX_AUTO_STAGES_OPS
        for report in reports:
            trip = static_trip_count(found[report.index])
            largest = self.max_stages if trip is None else min(self.max_stages, trip)
            copied = _nest_problem(found[report.index], largest, budget)
            if isinstance(copied, str):
                note = f"not tried: {copied}"
                lowered.append([(s, None, note) for s in range(1, max(1, largest) + 1)])
                continue
            budget -= copied
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


def _nest_problem(pipeline: PipelineOp, tried: int, budget: int) -> str | int:
    """
    Why the advisor does not try `pipeline`'s `tried` candidates (each a
    copy of the nest around it, as long as `MAX_ADVISED_OPS` lasts) with
    `budget` ops left to copy, or else about how many ops it copies.
    """
    root = pipeline
    for outer in ancestors(pipeline):
        if isinstance(outer, PipelineOp):
            root = outer
    ops = list(walk_ops(root))
    levels: dict[Operation, int] = {root: 1}  # pipelines around and at an op
    for op in ops[1:]:  # each after the op around it
        around = levels[cast(Operation, op.parent_op())]
        levels[op] = around + isinstance(op, PipelineOp)
    depth = max(levels.values())
    if depth > MAX_ADVISED_DEPTH:
        return f"a nest of {depth} pipelines, past the advisor's {MAX_ADVISED_DEPTH}"
    copied = len(ops) * min(tried, 1 + MAX_ADVISED_OPS // len(ops))
    if copied > budget:
        return (
            f"the copies would pass the advisor's budget of "
            f"{MAX_AUTO_STAGES_OPS:,} ops in a module"
        )
    return copied


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
    budget = MAX_AUTO_STAGES_OPS
    for index, pipeline in enumerate(pipelines(module)):
        written = pipeline.num_stages
        if written <= 1:
            continue
        function, location = describe(pipeline, index)
        name = loop_name(function, location, pipeline.induction_var.name_hint)
        loop = _Written(index, function, location, written, name)
        tried = min(written, MAX_ADVISED_STAGES)
        copied = _nest_problem(pipeline, tried, budget)
        if isinstance(copied, str):
            remarks.append(
                f"lower-pipeline-loops: remark: {name}: stages {written} kept: {copied}"
            )
            continue
        budget -= copied
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
