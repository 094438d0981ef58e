"""
`pypto-report`'s pictures of the modelled timelines: Chrome trace-event JSON
(`trace_events`, one track per engine, for Perfetto) and a swimlane plot
(`plot_timelines`, with matplotlib: the `report` extra).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pypto_dialect.tools.diagnostics import (
    ToolFailure,
)

if TYPE_CHECKING:
    from xdsl.ir import Operation

    from passes.schedule.engines import Unit
    from passes.schedule.report import LoopReport
    from passes.schedule.timeline import Interval, Timeline

TOOL = "pypto-report"
"""The tool whose pictures these are, as its errors name it."""


def _states(report: LoopReport) -> list[tuple[str, Timeline, int]]:
    """(label, timeline, iterations shown) of the states of a loop."""
    from passes.schedule.report import SHOWN_ITERATIONS

    if report.after is None:
        return [("now", report.before.timeline, SHOWN_ITERATIONS)]
    copies = report.after.copies
    return [
        ("before", report.before.timeline, SHOWN_ITERATIONS * copies),
        ("after", report.after.timeline, SHOWN_ITERATIONS),
    ]


def _label(op: Operation) -> str:
    names = [f"%{r.name_hint}" for r in op.results if r.name_hint]
    return " ".join([op.name, *names])


def _original_iteration(op: Operation, iteration: int, copies: int) -> int | None:
    """The original iteration an op of a (lowered) loop works for, if tagged."""
    from passes.orders.category import effective_membership

    if copies == 1:
        return iteration
    pairs = effective_membership(op)
    return iteration * copies + pairs[0][1] if pairs else None


def trace_events(reports: Sequence[LoopReport]) -> dict[str, Any]:
    """Chrome trace-event JSON: a process per loop and state, a thread per engine."""
    events: list[dict[str, Any]] = []
    pid = 0
    for report in reports:
        for label, timeline, shown in _states(report):
            pid += 1
            events.append(_metadata("process_name", pid, 0, f"{report.name}: {label}"))
            tids = {unit: tid for tid, unit in enumerate(lanes(timeline), 1)}
            for unit, tid in tids.items():
                events.append(_metadata("thread_name", pid, tid, timeline.label(unit)))
                events.append(
                    {
                        **_metadata("thread_sort_index", pid, tid, ""),
                        "args": {"sort_index": tid},
                    }
                )
            for interval in timeline.intervals(shown):
                step = timeline.steps[interval.step]
                for unit in step.units:
                    events.append(
                        {
                            "name": _label(step.op),
                            "cat": timeline.label(unit),
                            "ph": "X",
                            "pid": pid,
                            "tid": tids[unit],
                            "ts": interval.start,
                            "dur": interval.end - interval.start,
                            "args": {"iteration": interval.iteration},
                        }
                    )
    return {
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {"time unit": "1 cycle is shown as 1 microsecond"},
    }


def lanes(timeline: Timeline) -> list[Unit]:
    """The units of a timeline in display order: by core, then engine."""
    from passes.schedule.report_text import unit_order

    return sorted(timeline.busy, key=unit_order)


def _metadata(kind: str, pid: int, tid: int, name: str) -> dict[str, Any]:
    return {"name": kind, "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


PLOT_SUFFIXES = (".svg", ".png", ".pdf")
"""The formats `--plot` writes, by the path's suffix."""
PLOT_WIDTH = 17.0
"""Inches at `PLOT_DPI`: a PNG 1700 pixels wide."""
PLOT_DPI = 100
FONT = 12.0
"""Points: at least 12 pixels in a PNG at `PLOT_DPI` and in an SVG."""
_GREY = (0.78, 0.78, 0.78, 1.0)


@dataclass(frozen=True)
class _Panel:
    """One loop in one state: its timeline, how many iterations each window shows."""

    report: LoopReport
    state: str
    timeline: Timeline
    shown: int
    copies: int
    """Original iterations per iteration of this timeline."""
    group: int
    """Original iterations per iteration of the loop after the passes (F)."""


def _panels(reports: Sequence[LoopReport]) -> list[_Panel]:
    panels: list[_Panel] = []
    for report in reports:
        group = report.after.copies if report.after else 1
        for label, timeline, shown in _states(report):
            copies = group if label == "after" else 1
            panels.append(_Panel(report, label, timeline, shown, copies, group))
    return panels


def _colour(
    panel: _Panel, interval: Interval, palette: Any
) -> tuple[float, ...] | None:
    """
    The stage's hue (the original iteration modulo F, so before and after
    agree), shaded by the loop iteration; None for an untagged op.
    """
    from passes.schedule.report import SHOWN_ITERATIONS

    step = panel.timeline.steps[interval.step]
    original = _original_iteration(step.op, interval.iteration, panel.copies)
    if original is None:
        return None
    stage, round_ = original % panel.group, original // panel.group
    red, green, blue, _ = palette(stage % 10)
    mix = 0.45 * (round_ % SHOWN_ITERATIONS) / max(1, SHOWN_ITERATIONS - 1)
    return (*(c + (1 - c) * mix for c in (red, green, blue)), 1.0)


def plot_timelines(reports: Sequence[LoopReport], path: str) -> None:
    """
    Draw the swimlanes of every loop and state into `path` (format by
    suffix): the warm-up and a steady-state window side by side, one lane
    per unit, the bottleneck marked, queue waits and issue stalls shaded
    (their reason, like every op's, on hover in an SVG), iteration
    boundaries and the bound as lines.
    """
    try:
        import matplotlib  # an optional dependency

        matplotlib.use("Agg")
        # Text as text, and no random ids or dates: small, reproducible SVGs.
        matplotlib.rcParams["svg.fonttype"] = "none"
        matplotlib.rcParams["svg.hashsalt"] = TOOL
        matplotlib.rcParams["font.size"] = FONT
        from matplotlib import pyplot
        from matplotlib.lines import Line2D
        from matplotlib.patches import Patch
    except ImportError:
        raise ToolFailure(
            f"{TOOL}: error: --plot needs matplotlib: "
            "pip install 'pypto-dialect[report]' (or pip install matplotlib)"
        ) from None
    panels = _panels(reports)
    if not panels:
        raise ToolFailure(f"{TOOL}: error: --plot: no pypto.pipeline loops to draw")
    heights = [len(panel.timeline.busy) + 2.2 for panel in panels]
    figure, axes = pyplot.subplots(
        len(panels),
        2,
        figsize=(PLOT_WIDTH, 0.42 * sum(heights) + 1.6),
        height_ratios=heights,
        squeeze=False,
    )
    palette = pyplot.get_cmap("tab10")
    titles: dict[str, str] = {}
    for row, panel in enumerate(panels):
        for column, steady in enumerate((False, True)):
            _draw_window(axes[row, column], panel, steady, palette, titles)
    largest = max(panel.group for panel in panels)
    handles: list[Any] = [
        Patch(facecolor=palette(s % 10), label=f"stage {s}")
        for s in range(min(largest, 10))
    ]
    handles += [
        Patch(facecolor=_GREY, label="untagged op"),
        Patch(facecolor="white", hatch="///", edgecolor="0.4", label="waits in queue"),
        Patch(facecolor="white", hatch="xx", edgecolor="0.4", label="issue stalled"),
        Line2D([], [], color="0.3", linestyle="--", label="loop iteration"),
        Line2D([], [], color="red", linestyle=":", label="bound"),
    ]
    figure.legend(  # pyright: ignore[reportUnknownMemberType]
        handles=handles,
        loc="lower center",
        ncol=min(len(handles), 8),
        fontsize=FONT,
        frameon=False,
    )
    figure.tight_layout(rect=(0, 0.08, 1, 1))
    _save(figure, path, titles)
    pyplot.close(figure)


def _window(panel: _Panel, steady: bool) -> tuple[int, float]:
    """The first iteration a window shows, and the time its x axis starts at."""
    timeline = panel.timeline
    first = max(0, len(timeline.starts) - panel.shown) if steady else 0
    origin = min(timeline.starts[first], default=0.0) if steady else 0.0
    return first, origin


def _draw_window(
    axis: Any, panel: _Panel, steady: bool, palette: Any, titles: dict[str, str]
) -> None:
    timeline = panel.timeline
    units = lanes(timeline)
    lane = {unit: n for n, unit in enumerate(reversed(units))}
    first, origin = _window(panel, steady)
    shown = [i for i in timeline.intervals(first + panel.shown) if i.iteration >= first]
    end = max((i.end - origin for i in shown), default=1.0) or 1.0
    for interval in shown:
        step = timeline.steps[interval.step]
        colour = _colour(panel, interval, palette) or _GREY
        for unit in step.units:
            y = lane[unit]
            start = interval.start - origin
            gid = f"op{len(titles)}"
            bar = axis.broken_barh(
                [(start, interval.end - interval.start)],
                (y - 0.22, 0.62),
                facecolors=colour,
                edgecolors="black",
                linewidth=0.4,
            )
            bar.set_gid(gid)
            titles[gid] = _hover(panel, interval, unit)
            queue = f"{timeline.label(unit)} queue full"
            for left, right, hatch, what, why in (
                (interval.reached, interval.issued, "xx", "issue stalled", queue),
                (
                    interval.issued,
                    interval.start,
                    "///",
                    "waits in queue",
                    interval.reason,
                ),
            ):
                if right - left > 0:
                    shade = axis.broken_barh(
                        [(left - origin, right - left)],
                        (y - 0.42, 0.18),
                        facecolors="white",
                        edgecolors="0.4",
                        hatch=hatch,
                        linewidth=0.3,
                    )
                    gid = f"op{len(titles)}"
                    shade.set_gid(gid)
                    titles[gid] = (
                        f"{_label(step.op)}: {what} {right - left:.1f} cycles"
                        + (f" ({why})" if why else "")
                    )
            if interval.end - interval.start > end / 30:
                axis.text(
                    start + (interval.end - interval.start) / 2,
                    y + 0.09,
                    step.op.name.rsplit(".", 1)[-1],
                    ha="center",
                    va="center",
                    fontsize=FONT,
                    clip_on=True,
                )
    for n in range(first, first + panel.shown):
        if n < len(timeline.starts) and n % (panel.group // panel.copies or 1) == 0:
            boundary = min(timeline.starts[n], default=0.0) - origin
            axis.axvline(boundary, color="0.3", linestyle="--", linewidth=0.8)
    rounds = panel.shown * panel.copies / panel.group
    bound = panel.group * (panel.report.after or panel.report.before).bound
    if steady:
        axis.axvline(rounds * bound, color="red", linestyle=":", linewidth=1.5)
    bottleneck = timeline.bottleneck
    axis.set_yticks(
        range(len(units)),
        [
            timeline.label(u) + (" (bottleneck)" if u == bottleneck else "")
            for u in reversed(units)
        ],
        fontsize=FONT,
    )
    for tick, unit in zip(axis.get_yticklabels(), reversed(units), strict=True):
        if unit == bottleneck:
            tick.set_fontweight("bold")
    axis.set_xlim(0, end * 1.02)
    axis.tick_params(axis="x", labelsize=FONT)
    figures = panel.report.after if panel.state == "after" else panel.report.before
    assert figures is not None
    if steady:
        title = (
            f"steady state, iterations {first}-{first + panel.shown - 1}: "
            f"{figures.time:.1f} per original iteration ({figures.efficiency:.1%})"
        )
    else:
        report = panel.report
        where = report.location.rsplit("/", 1)[-1]
        name = f"@{report.function} at {where}" if report.function else where
        title = f"{name}: {panel.state}: warm-up"
    axis.set_title(title, fontsize=FONT, loc="left")
    axis.set_xlabel("cycles" + (" from the window's start" if steady else ""))


def _hover(panel: _Panel, interval: Interval, unit: Unit) -> str:
    step = panel.timeline.steps[interval.step]
    original = _original_iteration(step.op, interval.iteration, panel.copies)
    stage = "untagged" if original is None else f"stage {original % panel.group}"
    lines = [
        f"{_label(step.op)} on {panel.timeline.label(unit)}",
        f"iteration {interval.iteration}, {stage}",
        f"cycles {interval.start:.1f} to {interval.end:.1f}",
    ]
    if interval.reason:
        lines.append(
            f"started {interval.start - interval.issued:.1f} late: {interval.reason}"
        )
    return "\n".join(lines)


def _save(figure: Any, path: str, titles: Mapping[str, str]) -> None:
    """Write the figure; in an SVG, each op's group gets its `<title>` (shown on hover)."""
    suffix = Path(path).suffix
    try:
        metadata = {"Date": None} if suffix in (".svg", ".pdf") else None
        figure.savefig(path, metadata=metadata, dpi=PLOT_DPI)  # pyright: ignore[reportUnknownMemberType]
        if suffix == ".svg":
            svg = Path(path).read_text(encoding="utf-8")
            for gid, title in titles.items():
                svg = svg.replace(
                    f'<g id="{gid}">',
                    f'<g id="{gid}">\n   <title>{html.escape(title)}</title>',
                    1,
                )
            Path(path).write_text(svg, encoding="utf-8")
    except (OSError, ValueError) as error:
        raise ToolFailure(
            f"{TOOL}: error: --plot: cannot write {path}: {error}"
        ) from None
