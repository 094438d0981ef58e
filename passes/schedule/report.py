"""
The schedule report of pipeline loops, which the `pipeline-report` pass
(`passes.pipeline_report`) and `pypto-report` print.

For each `pypto.pipeline` of a module, the modelled schedule of its body
(`passes.schedule.timeline`) before and after a pass pipeline, per original
iteration (the pipeline found again after the passes by location, see
`passes.schedule.advisor`); the stages advisor's candidates
(`passes.schedule.advisor`); and the strategies of
`passes.schedule.defaults.STRATEGIES` side by side (`compare_strategies`).
The text tables are
`passes.schedule.report_text`; the JSON form (`report_json`) is here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import LocationAttr, ModuleOp
from xdsl.passes import PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException

from passes.diagnostics import cost_model
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass, slot_declines
from passes.schedule.advisor import Advice, describe, loop_name
from passes.schedule.defaults import STRATEGIES
from passes.schedule.engines import CostModel
from passes.schedule.lowered import (
    Figures,
    copy_for_passes,
    find_loop,
    loop_figures,
    lowered_figures,
    pipelines,
    remainder_extent,
)
from passes.schedule.op_costs import static_trip_count
from passes.schedule.timeline import (
    MIN_ITERATIONS,
    LoopModel,
)
from passes.slots_policy import Decline
from pypto_dialect.checked import verify_module
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import walk_ops

SHOWN_ITERATIONS = 3
"""Iterations of the loop after the passes that a trace or plot shows."""
STRATEGY_TAIL = "canonicalize-io-order"
"""The pass that follows each strategy in `compare_strategies`."""
FLATTENED = "no loop after the passes (its iterations were flattened)"
NOT_COMPARABLE = (
    "before and after are not comparable: a pipeline nested in it has a dynamic "
    "trip count, costed as one iteration before the passes and as its main loop "
    "and costliest remainder after them (no speed-up given)"
)


def _title(function: str, location: str, induction_var: str | None, stages: int) -> str:
    """How the report names a pipeline: `loop_name`, then its stages."""
    return f"{loop_name(function, location, induction_var)}, stages {stages}"


def _identity(
    function: str, location: str, induction_var: str | None, stages: int
) -> dict[str, Any]:
    """The JSON keys that say which pipeline a report is about."""
    return {
        "function": function,
        "location": location,
        "induction_var": induction_var,
        "stages": stages,
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
    comparable: bool = True
    """Whether before and after are costed alike (`NOT_COMPARABLE` says when not)."""

    @property
    def name(self) -> str:
        return _title(self.function, self.location, self.induction_var, self.stages)

    @property
    def speedup(self) -> float | None:
        if self.after is None or self.after.time == 0 or not self.comparable:
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
            **_identity(self.function, self.location, self.induction_var, self.stages),
            "before": self.before.to_json(),
            "after": None if self.after is None else self.after.to_json(),
            "speedup": self.speedup,
            "comparable": self.comparable,
            "note": self.note,
            "warnings": self.warnings(),
        }


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
        function, location = describe(pipeline, index)
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
        note = FLATTENED if after is not None and lowered is None else ""
        comparable = figures is None or not nested_dynamic_pipeline(pipeline)
        note = note or ("" if comparable else NOT_COMPARABLE)
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
                comparable,
            )
        )
    return reports


def nested_dynamic_pipeline(pipeline: PipelineOp) -> bool:
    """
    Whether a pipeline with stages > 1 and a dynamic trip count is nested in
    `pipeline`: the lowering turns it into a main loop and a remainder, which
    the model costs otherwise than the pipeline it was.
    """
    return any(
        isinstance(op, PipelineOp)
        and op is not pipeline
        and op.num_stages > 1
        and static_trip_count(op) is None
        for op in walk_ops(pipeline)
    )


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
# JSON (the text is `passes.schedule.report_text`)
# --------------------------------------------------------------------------- #


def report_json(
    reports: Sequence[LoopReport],
    model: CostModel,
    passes: str | None,
    advice: Sequence[Advice] = (),
    strategies: Sequence[StrategyComparison] = (),
) -> dict[str, Any]:
    """The report as JSON-ready data."""
    return {
        "units": "cycles per original iteration",
        "costs": model.source,
        "passes": passes,
        "loops": [report.to_json() for report in reports],
        "advisor": [entry.to_json() for entry in advice],
        "strategies": [comparison.to_json() for comparison in strategies],
    }


def pass_pipeline(spec: str) -> PassPipeline:
    """The pass pipeline `spec` names, from every installed xDSL universe."""
    return PassPipeline.parse_spec(Universe.get_multiverse().all_passes, spec)


# --------------------------------------------------------------------------- #
# The strategies side by side
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class StrategyOutcome:
    """What one strategy made of one pipeline."""

    strategy: str
    figures: Figures | None
    """None: the strategy failed, or left no loop (see `note`)."""
    ops: int | None = None
    """The ops of the loop after the strategy, and of what runs its remainder."""
    note: str = ""
    """Why there are no figures, or that the strategy declined the loop."""

    def to_json(self) -> dict[str, Any]:
        return {
            "strategy": self.strategy,
            "ops": self.ops,
            "note": self.note,
            "figures": None if self.figures is None else self.figures.to_json(),
        }


@dataclass(frozen=True)
class StrategyComparison:
    """One pipeline under each strategy, in the order of the strategies."""

    function: str
    location: str
    stages: int
    induction_var: str | None
    outcomes: tuple[StrategyOutcome, ...]

    @property
    def name(self) -> str:
        return _title(self.function, self.location, self.induction_var, self.stages)

    def to_json(self) -> dict[str, Any]:
        return {
            **_identity(self.function, self.location, self.induction_var, self.stages),
            "strategies": [outcome.to_json() for outcome in self.outcomes],
        }


@dataclass(frozen=True)
class _Lowered:
    """A module after one strategy (`copy`), or the first line of its error."""

    name: str
    copy: tuple[ModuleOp, Sequence[LocationAttr]] | None
    error: str = ""
    declines: Mapping[PipelineOp, Decline] = field(
        default_factory=dict[PipelineOp, Decline]
    )
    """The input's pipelines the strategy's `lower-pipeline-to-slots` declines."""


def compare_strategies(
    ctx: Context,
    module: ModuleOp,
    model: CostModel,
    strategies: Sequence[tuple[str, str]] = STRATEGIES,
    *,
    trip: int | None = None,
    costs: str = "",
) -> list[StrategyComparison]:
    """
    Each pipeline of `module` under each strategy (name, passes), followed by
    `STRATEGY_TAIL`, each run once on a copy of the module; `trip` is the
    trip count of pipelines whose bounds are not constants, `costs` the path
    of `model`'s table (empty: the bundled one), which bounds the slots.
    """
    lowered = [_lower(ctx, module, name, spec, costs) for name, spec in strategies]
    comparisons: list[StrategyComparison] = []
    for index, pipeline in enumerate(pipelines(module)):
        function, location = describe(pipeline, index)
        trips = static_trip_count(pipeline)
        trips = trip if trips is None else trips
        comparisons.append(
            StrategyComparison(
                function,
                location,
                pipeline.num_stages,
                pipeline.induction_var.name_hint,
                tuple(
                    _outcome(strategy, pipeline, index, model, trips)
                    for strategy in lowered
                ),
            )
        )
    return comparisons


def _lower(
    ctx: Context, module: ModuleOp, name: str, spec: str, costs: str
) -> _Lowered:
    """
    The module after the strategy, its `lower-pipeline-to-slots` bounded by
    the cost table `costs`; where that pass runs first, the gates that
    decline pipelines of the input.
    """
    passes = pass_pipeline(f"{spec},{STRATEGY_TAIL}").passes
    passes = tuple(
        replace(p, costs=costs) if isinstance(p, LowerPipelineToSlotsPass) else p
        for p in passes
    )
    first = passes[0]
    try:
        declines: Mapping[PipelineOp, Decline] = {}
        if isinstance(first, LowerPipelineToSlotsPass):
            capacities = cost_model(first.name, first.costs).capacities
            declines = slot_declines(module, capacities)
        copy = lowered_copy(ctx, module, PassPipeline(passes))
    except DiagnosticException as error:
        return _Lowered(name, None, str(error).splitlines()[0])
    return _Lowered(name, copy, declines=declines)


def _outcome(
    strategy: _Lowered,
    pipeline: PipelineOp,
    index: int,
    model: CostModel,
    trip: int | None,
) -> StrategyOutcome:
    if strategy.copy is None:
        return StrategyOutcome(strategy.name, None, note=f"failed: {strategy.error}")
    copy, keys = strategy.copy
    loop = find_loop(copy, keys[index])
    if loop is None:
        return StrategyOutcome(strategy.name, None, note=FLATTENED)
    figures = lowered_figures(pipeline, loop, model, trip)
    extent = remainder_extent(loop) if figures.copies > 1 else ()
    ops = sum(1 for root in (loop, *extent) for _ in walk_ops(root))
    note = ""
    if (decline := strategy.declines.get(pipeline)) is not None:
        note = (
            f"declined by lower-pipeline-to-slots, gate {decline.gate.value}: "
            f"{decline.detail}; replicated"
        )
    return StrategyOutcome(strategy.name, figures, ops, note)
