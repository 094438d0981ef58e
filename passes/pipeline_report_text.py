"""
The text rendering of the schedule report (`passes.pipeline_report`): a
table per pipeline loop, before and after a pass pipeline, and the stages
advisor's table of candidates with its answer. `pipeline-report` and
`pypto-report` print these; the JSON form stays with the model
(`report_json`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from passes.analysis.engines import CostModel, Engine
from pypto_dialect.types import MemorySpace

if TYPE_CHECKING:  # for types only: `pipeline_report` imports this module
    from passes.pipeline_report import Advice, Figures, LoopReport


def _cycles(value: float) -> str:
    return f"{value:.1f}"


def _table(rows: Sequence[Sequence[str]], indent: str = "  ") -> list[str]:
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


def _time_rows(states: States) -> list[list[str]]:
    """Busy time per engine, bound, bottleneck, modelled time, efficiency."""
    engines = [e for e in Engine if any(f and e in f.busy for f in states)]
    return [
        *(
            _row(f"busy {e}", states, lambda f, e=e: _cycles(f.busy.get(e, 0.0)))
            for e in engines
        ),
        _row("bound (busiest engine)", states, lambda f: _cycles(f.resource_bound)),
        _row("bound (recurrence)", states, _recurrence),
        _row("bottleneck", states, lambda f: str(f.timeline.bottleneck or "-")),
        _row("modelled time", states, lambda f: _cycles(f.time)),
        _row("efficiency (bound / time)", states, _efficiency),
    ]


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
        lines += _table(rows)
        if report.note:
            lines.append(f"  note: {report.note}")
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
        lines += _table(rows)
        lines.extend(
            f"  stages {c.stages}: {c.note}" for c in entry.candidates if c.note
        )
        lines.append(f"  suggestion: {entry.answer()}")
        lines.append("")
    return "\n".join(lines) + "\n"
