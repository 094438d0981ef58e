"""
The text rendering of the schedule report (`passes.pipeline_report`): a
table per pipeline loop, before and after a pass pipeline, the stages
advisor's table of candidates with its answer, the strategies side by side,
and the sensitivity table (`passes.schedule.sensitivity`). `pipeline-report` and
`pypto-report` print these; the JSON form stays with the model
(`report_json`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from passes.schedule.engines import Core, CostModel, Engine, Unit
from pypto_dialect.types import MemorySpace

if TYPE_CHECKING:
    from passes.schedule.advisor import Advice
    from passes.schedule.lowered import Figures
    from passes.schedule.report import LoopReport, StrategyComparison
    from passes.schedule.sensitivity import Sensitivity


def _cycles(value: float) -> str:
    return f"{value:.1f}"


def table_lines(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
    """Rows of cells: the first column left-aligned, the others right-aligned."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent
        + "  ".join(
            cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i])
            for i, cell in enumerate(row)
        ).rstrip()
        for row in rows
    ]


States: TypeAlias = "Sequence[Figures | None]"


def _row(label: str, states: States, cell: Callable[[Figures], str]) -> list[str]:
    return [label, *("-" if f is None else cell(f) for f in states)]


def unit_order(unit: Unit) -> tuple[int, int]:
    """Units in display order: core-less first, then AIC, AIV; engines in `Engine` order."""
    cores = [None, *Core]
    return cores.index(unit.core), list(Engine).index(unit.engine)


def _time_rows(states: States) -> list[list[str]]:
    """Busy time per unit, bound, bottleneck, modelled time, efficiency, whole loop."""
    units = sorted({u for f in states if f for u in f.busy}, key=unit_order)
    shown = next(f.timeline for f in states if f)
    return [
        *(
            _row(
                f"busy {shown.label(u)}",
                states,
                lambda f, u=u: _cycles(f.busy.get(u, 0.0)),
            )
            for u in units
        ),
        _row("bound (busiest engine)", states, lambda f: _cycles(f.resource_bound)),
        _row("bound (recurrence)", states, _recurrence),
        _row("bottleneck", states, _bottleneck),
        _row("modelled time", states, lambda f: _cycles(f.time)),
        _row("efficiency (bound / time)", states, _efficiency),
        _row(_whole_label(states), states, _whole_time),
        _row("whole-loop efficiency", states, _whole_efficiency),
    ]


def _bottleneck(figures: Figures) -> str:
    unit = figures.timeline.bottleneck
    return "-" if unit is None else figures.timeline.label(unit)


def _whole_label(states: States) -> str:
    trip = next((f.whole.trip for f in states if f and f.whole.trip is not None), None)
    return "whole loop (cycles)" if trip is None else f"whole loop ({trip} iterations)"


def _whole_time(figures: Figures) -> str:
    return "-" if figures.whole.time is None else _cycles(figures.whole.time)


def _whole_efficiency(figures: Figures) -> str:
    efficiency = figures.whole_efficiency
    return "-" if efficiency is None else f"{efficiency:.1%}"


def _recurrence(figures: Figures) -> str:
    exact = figures.recurrence.exact
    return _cycles(figures.recurrence_bound) + ("" if exact else " (at least)")


def _efficiency(figures: Figures) -> str:
    return f"{figures.efficiency:.1%}"


def _spaces(states: States) -> list[MemorySpace]:
    """The memory spaces some state has tiles in."""
    return [
        s
        for s in MemorySpace
        if any(f and f.timeline.peak_bytes.get(s) for f in states)
    ]


def _peak(figures: Figures, space: MemorySpace) -> str:
    over = " OVER" if space in figures.timeline.over_capacity else ""
    return f"{figures.timeline.peak_bytes.get(space, 0)}{over}"


def _memory_rows(
    states: States, capacities: Mapping[MemorySpace, int]
) -> list[list[str]]:
    return [
        _row(f"peak {s} bytes (of {capacities[s]})", states, lambda f, s=s: _peak(f, s))
        for s in _spaces(states)
    ]


def render_report(
    reports: Sequence[LoopReport], model: CostModel, passes: str | None
) -> str:
    """The text report: a table per pipeline loop."""
    if not reports:
        return "no pypto.pipeline loops\n"
    lines: list[str] = []
    for report in reports:
        lines.append(report.name)
        states: States = (
            (report.before,) if passes is None else (report.before, report.after)
        )
        header = (
            ["cycles per iteration", "now"]
            if passes is None
            else ["cycles per original iteration", "before", "after"]
        )
        rows = [header, *_time_rows(states)]
        if passes is not None:
            speedup = report.speedup
            rows.append(["speed-up", "", "-" if speedup is None else f"{speedup:.2f}x"])
        rows += _memory_rows(states, model.capacities)
        lines += table_lines(rows)
        if report.note:
            lines.append(f"  note: {report.note}")
        notes = {f.whole.note for f in states if f is not None and f.whole.note}
        lines.extend(f"  note: whole loop: {note}" for note in sorted(notes))
        if any(f is not None and not f.timeline.converged for f in states):
            lines.append("  note: no periodic steady state found: times are averages")
        lines.extend(f"  warning: {warning}" for warning in report.warnings())
        lines.append("")
    return "\n".join(lines) + "\n"


def render_advice(advice: Sequence[Advice]) -> str:
    """The advisor's table of candidates and its answer, per pipeline."""
    lines: list[str] = []
    for entry in advice:
        lines.append(f"stages advisor: {entry.report.name}")
        spaces = _spaces([c.figures for c in entry.candidates])
        header = ["stages", "time", "bound", "efficiency"]
        header += [*(f"{s} bytes" for s in spaces), "fits"]
        rows = [header]
        for candidate in entry.candidates:
            f = candidate.figures
            if f is None:
                rows.append(
                    [str(candidate.stages), "-", "-", "-", *["-"] * len(spaces), "-"]
                )
                continue
            rows.append(
                [
                    str(candidate.stages),
                    _cycles(f.time),
                    _cycles(f.bound),
                    _efficiency(f),
                    *(_peak(f, s) for s in spaces),
                    "yes" if f.fits else "no",
                ]
            )
        lines += table_lines(rows)
        lines.extend(
            f"  stages {c.stages}: {c.note}" for c in entry.candidates if c.note
        )
        lines.append(f"  suggestion: {entry.answer()}")
        lines.append("")
    return "\n".join(lines) + "\n"


def render_strategies(
    comparisons: Sequence[StrategyComparison], model: CostModel
) -> str:
    """Per pipeline, a column per strategy: ops, times and peak bytes, or why not."""
    if not comparisons:
        return ""
    lines: list[str] = []
    for comparison in comparisons:
        lines.append(f"strategies: {comparison.name}")
        outcomes = comparison.outcomes
        states: States = [outcome.figures for outcome in outcomes]
        rows = [
            ["cycles per original iteration", *(o.strategy for o in outcomes)],
            [
                "ops emitted",
                *("-" if o.ops is None else f"{o.ops:,}" for o in outcomes),
            ],
            _row("modelled time", states, lambda f: _cycles(f.time)),
            _row("bound", states, lambda f: _cycles(f.bound)),
            _row(_whole_label(states), states, _whole_time),
            *_memory_rows(states, model.capacities),
        ]
        lines += table_lines(rows)
        lines.extend(f"  {o.strategy}: {o.note}" for o in outcomes if o.note)
        notes = {f.whole.note for f in states if f is not None and f.whole.note}
        lines.extend(f"  note: whole loop: {note}" for note in sorted(notes))
        lines.append("")
    return "\n".join(lines) + "\n"


def render_sensitivity(result: Sensitivity) -> str:
    """Per pipeline: the headline figures under each variant, and the flips."""
    lines: list[str] = []
    for index, report in enumerate(result.reports):
        lines.append(f"sensitivity: {report.name}")
        baseline = result.baseline[index]
        rows = [
            [
                "queue depth",
                "sync latency",
                "time",
                "efficiency",
                "whole loop",
                "speed-up",
                "bottleneck",
                "stages",
            ]
        ]
        flips: list[str] = []
        for variant in result.variants:
            c = variant.conclusions[index]
            figures = c.figures
            whole = figures.whole.time
            rows.append(
                [
                    str(variant.queue_depth),
                    f"{variant.sync_latency:g}",
                    f"{figures.time:.1f}",
                    f"{figures.efficiency:.1%}",
                    "-" if whole is None else f"{whole:.1f}",
                    "-" if c.speedup is None else f"{c.speedup:.2f}x",
                    c.bottleneck,
                    "-" if c.stages is None else str(c.stages),
                ]
            )
            flips += [
                f"queue depth {variant.queue_depth}, sync latency "
                f"{variant.sync_latency:g}: {flip}"
                for flip in c.flips(baseline)
            ]
        lines += table_lines(rows)
        lines += [f"  flips: {flip}" for flip in flips] or ["  flips: none"]
        lines.append("")
    return "\n".join(lines) + "\n"
