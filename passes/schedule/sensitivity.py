"""
How the schedule report's conclusions depend on the two figures with no
public source: the depth of the engines' queues and the latency of a flag
between engines. `sensitivity` re-runs the report (and the stages advisor)
with `queue_depth` 2, 4 and 8 and `sync_latency` 0, the table's and twice
the table's, on the same lowered loops, and lists every conclusion that
flips against the table's own: a speed-up below 1, another bottleneck,
another advised `stages`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from passes.schedule.advisor import Advice, StagesAdvisor
from passes.schedule.defaults import MAX_STAGES
from passes.schedule.engines import CostModel
from passes.schedule.lowered import Figures
from passes.schedule.report import LoopReport, compare, lowered_copy

QUEUE_DEPTHS = (2, 4, 8)
"""The queue depths tried."""
SYNC_FACTORS = (0, 1, 2)
"""The sync latencies tried, as multiples of the table's."""


@dataclass(frozen=True)
class Conclusions:
    """What a report concludes for one pipeline under one cost table."""

    figures: Figures
    """After the passes (or as it is, without passes)."""
    speedup: float | None
    stages: int | None
    """The advised `stages` (None if nothing fits)."""

    @property
    def bottleneck(self) -> str:
        timeline = self.figures.timeline
        unit = timeline.bottleneck
        return "-" if unit is None else timeline.label(unit)

    def flips(self, baseline: Conclusions) -> list[str]:
        """The conclusions that differ from `baseline`'s."""
        flips: list[str] = []
        if (
            self.speedup is not None
            and baseline.speedup is not None
            and (self.speedup < 1) != (baseline.speedup < 1)
        ):
            flips.append(f"speed-up {self.speedup:.2f}x (was {baseline.speedup:.2f}x)")
        if self.bottleneck != baseline.bottleneck:
            flips.append(f"bottleneck {self.bottleneck} (was {baseline.bottleneck})")
        if self.stages != baseline.stages:
            flips.append(f"advised stages {self.stages} (was {baseline.stages})")
        return flips


@dataclass(frozen=True)
class Variant:
    """One cost table of the sensitivity run, and its conclusions per pipeline."""

    queue_depth: int
    sync_latency: float
    conclusions: tuple[Conclusions, ...]


@dataclass(frozen=True)
class Sensitivity:
    """The table's own conclusions and each variant's, per pipeline."""

    reports: tuple[LoopReport, ...]
    """The reports under the table's own figures."""
    baseline: tuple[Conclusions, ...]
    variants: tuple[Variant, ...]


def variants(model: CostModel) -> list[CostModel]:
    """`model` with each queue depth and sync latency tried (without repeats)."""
    syncs = dict.fromkeys(model.sync_latency * f for f in SYNC_FACTORS)
    return [
        dataclasses.replace(model, queue_depth=depth, sync_latency=sync)
        for depth in QUEUE_DEPTHS
        for sync in syncs
    ]


def sensitivity(
    ctx: Context,
    module: ModuleOp,
    model: CostModel,
    pipeline: PassPipeline | None,
    advisor: PassPipeline,
    *,
    max_stages: int = MAX_STAGES,
    trip: int | None = None,
) -> Sensitivity:
    """
    The conclusions of the report of `module` (after `pipeline`, the
    advisor with `advisor`) under `model` and under each of its `variants`.
    The passes run once: every table simulates the same loops.
    """
    lowered = lowered_copy(ctx, module, pipeline)
    base = StagesAdvisor(ctx, model, advisor, max_stages, trip)
    reports = compare(module, model, lowered, trip)
    candidates = base.lower(module, reports)

    def conclude(table: CostModel) -> tuple[Conclusions, ...]:
        loops = compare(module, table, lowered, trip)
        advisor_run = dataclasses.replace(base, model=table)
        advice = advisor_run.advise(module, loops, candidates)
        return tuple(_conclusions(r, a) for r, a in zip(loops, advice, strict=True))

    return Sensitivity(
        tuple(reports),
        conclude(model),
        tuple(
            Variant(table.queue_depth, table.sync_latency, conclude(table))
            for table in variants(model)
        ),
    )


def _conclusions(report: LoopReport, advice: Advice) -> Conclusions:
    best = advice.suggestion
    figures = report.before if report.after is None else report.after
    return Conclusions(figures, report.speedup, None if best is None else best.stages)
