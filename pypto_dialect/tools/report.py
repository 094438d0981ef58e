"""
`pypto-report`: the modelled schedule of a kernel's pipeline loops, like
`llvm-mca` for tile programs.

    pypto-report kernel.mlir [--passes PIPELINE] [--costs FILE] [--json OUT]
                 [--trace OUT.json] [--plot OUT.svg] [--suggest-stages]
                 [--trip N] [--sensitivity] [--strategies]
    pypto-report --print-costs

Per `pypto.pipeline`: the engines' busy time, the resource bound, the
modelled time per original iteration and the efficiency, before and after
`--passes`, and the peak bytes per memory space against the capacities
(`passes.pipeline_report`, rendered by `passes.schedule.report_text`, on
the engine model of `passes.analysis`). `--trace` writes Chrome trace-event
JSON (one track per engine), `--plot` a swimlane picture (needs matplotlib:
the `report` extra), `--suggest-stages` the stages advisor, `--sensitivity`
the conclusions under other queue depths and sync latencies
(`passes.schedule.sensitivity`), `--strategies` the strategies of
`passes.schedule.defaults.STRATEGIES` side by side. Problems are
`error:` lines on stderr and exit code 1, never a traceback; any other
exception is an internal error (exit code 70).
"""

from __future__ import annotations

import argparse
import html
import json
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from xdsl.universe import Universe

from passes.schedule.defaults import (
    DEFAULT_PASSES,
    MAX_ADVISED_STAGES,
    MAX_STAGES,
    max_stages_problem,
)
from pypto_dialect.tools.diagnostics import (
    ToolFailure,
    add_traceback_flag,
    add_version_flag,
    int_at_least,
    report_internal_error,
    reported_diagnostics,
)
from pypto_dialect.tools.inputs import parse_input
from pypto_dialect.tools.inputs import source_name as input_source_name
from pypto_dialect.tools.pipelines import PipelineError, parse_pipeline

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.ir import Operation
    from xdsl.passes import PassPipeline

    from passes.schedule.advisor import Advice
    from passes.schedule.engines import CostModel, Unit
    from passes.schedule.report import LoopReport
    from passes.schedule.timeline import Interval, Timeline
    from pypto_dialect.checked import OpSpans

TOOL = "pypto-report"


def main(args: Sequence[str] | None = None) -> int:
    """Entry point of the `pypto-report` console script; returns the exit code."""
    options = _argument_parser().parse_args(args)
    try:
        return _report(options)
    except ToolFailure as failure:
        print(failure, file=sys.stderr)
        return 1
    except Exception as error:
        return report_internal_error(TOOL, error, options.traceback)


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=TOOL,
        description="The modelled schedule of a kernel's pipeline loops, "
        "before and after passes.",
    )
    parser.add_argument(
        "kernel",
        nargs="?",
        help="the kernel: .mlir (or '-' for MLIR on stdin), .py or .pypto (PyPTO)",
    )
    parser.add_argument(
        "--passes",
        metavar="PIPELINE",
        help="compare with the kernel after this pass pipeline "
        f"(e.g. '{DEFAULT_PASSES}')",
    )
    parser.add_argument(
        "--costs",
        metavar="FILE",
        help="a JSON cost table (default: the bundled illustrative one, "
        "which --print-costs prints)",
    )
    parser.add_argument(
        "--print-costs",
        action="store_true",
        help="print the bundled cost table (a template for --costs) and exit",
    )
    parser.add_argument("--json", metavar="OUT", help="also write the report as JSON")
    parser.add_argument(
        "--trace",
        metavar="OUT",
        help="write the timelines as Chrome trace-event JSON (Perfetto, chrome://tracing)",
    )
    parser.add_argument(
        "--plot",
        metavar="OUT",
        help="draw the timelines (OUT ends in .svg, .png or .pdf; needs matplotlib)",
    )
    parser.add_argument(
        "--suggest-stages",
        action="store_true",
        help="per pipeline, the smallest stages within 5%% of the bound that "
        f"fits in memory (with --passes, else '{DEFAULT_PASSES}')",
    )
    parser.add_argument(
        "--max-stages",
        metavar="N",
        type=int_at_least(1, "positive"),
        default=MAX_STAGES,
        help="the largest stages the advisor tries "
        f"(default: {MAX_STAGES}, at most {MAX_ADVISED_STAGES})",
    )
    parser.add_argument(
        "--trip",
        metavar="N",
        type=_trip_count,
        help="the trip count of loops with dynamic bounds, for the whole-loop time",
    )
    parser.add_argument(
        "--sensitivity",
        action="store_true",
        help="re-run the report with queue depth 2, 4, 8 and sync latency 0, "
        "the table's and twice it, and list the conclusions that flip",
    )
    parser.add_argument(
        "--strategies",
        action="store_true",
        help="per pipeline, each lowering strategy (cascade, loop, slots) "
        "side by side: ops emitted, modelled time, whole loop, peak bytes",
    )
    add_version_flag(parser, TOOL)
    add_traceback_flag(parser)
    return parser


def _trip_count(text: str) -> int:
    """An argparse `type`: a trip count from 1 to `MAX_TOTAL_ITERATIONS`."""
    from passes.schedule.timeline import MAX_TOTAL_ITERATIONS

    value = int(text)
    if not 1 <= value <= MAX_TOTAL_ITERATIONS:
        raise argparse.ArgumentTypeError(f"must be 1 to {MAX_TOTAL_ITERATIONS}")
    return value


_trip_count.__name__ = "int"  # argparse names the type in "invalid int value"


def _report(options: argparse.Namespace) -> int:
    from passes.schedule.advisor import StagesAdvisor
    from passes.schedule.engines import default_costs_text
    from passes.schedule.report import (
        StrategyComparison,
        compare_strategies,
        report_json,
        run_report,
    )
    from passes.schedule.report_text import (
        render_advice,
        render_report,
        render_sensitivity,
        render_strategies,
    )
    from passes.schedule.sensitivity import sensitivity
    from pypto_dialect.checked import verify_module
    from pypto_dialect.context import pypto_context
    from pypto_dialect.walks import walk_ops

    if options.print_costs:
        print(default_costs_text(), end="")
        return 0
    if options.kernel is None:
        raise ToolFailure(
            f"{TOOL}: error: the kernel is required (but with --print-costs)"
        )
    if (problem := max_stages_problem(options.max_stages)) is not None:
        raise ToolFailure(f"{TOOL}: error: --max-stages: {problem}")
    if options.plot is not None and Path(options.plot).suffix not in PLOT_SUFFIXES:
        raise ToolFailure(
            f"{TOOL}: error: --plot: '{options.plot}' must end in "
            f"{', '.join(PLOT_SUFFIXES)} (the format to write)"
        )
    model = _cost_model(options.costs)
    ctx = pypto_context()
    source_name = input_source_name(options.kernel)
    op_spans: OpSpans = {}
    module = parse_input(ctx, options.kernel, TOOL, op_spans)
    with reported_diagnostics(source_name, op_spans):
        verify_module(module)
    pipeline = None if options.passes is None else _pipeline(options.passes)

    def prepare(copy: ModuleOp) -> None:
        # The ops the passes keep (or move) keep their source locations.
        pairs = zip(walk_ops(copy), walk_ops(module), strict=True)
        op_spans.update({new: op_spans[old] for new, old in pairs if old in op_spans})

    with reported_diagnostics(
        source_name, op_spans, f"after --passes '{options.passes}'"
    ):
        reports = run_report(ctx, module, model, pipeline, prepare, trip=options.trip)
    print(render_report(reports, model, options.passes), end="")
    for report in reports:
        for warning in report.warnings():
            print(f"{_where(report, source_name)}: warning: {warning}", file=sys.stderr)
    advice: list[Advice] = []
    if options.suggest_stages:
        advisor = StagesAdvisor(
            ctx,
            model,
            pipeline or _pipeline(DEFAULT_PASSES),
            options.max_stages,
            options.trip,
        )
        advice = advisor.advise(module, reports)
        print(render_advice(advice), end="")
    if options.sensitivity:
        result = sensitivity(
            ctx,
            module,
            model,
            pipeline,
            pipeline or _pipeline(DEFAULT_PASSES),
            max_stages=options.max_stages,
            trip=options.trip,
        )
        print(render_sensitivity(result), end="")
    strategies: list[StrategyComparison] = []
    if options.strategies:
        # A strategy that fails says so in its column.
        strategies = compare_strategies(
            ctx, module, model, trip=options.trip, costs=options.costs or ""
        )
        print(render_strategies(strategies, model), end="")
    if options.json is not None:
        data = report_json(reports, model, options.passes, advice, strategies)
        _write(options.json, _strict_json({"input": source_name, **data}, indent=2))
    if options.trace is not None:
        _write(options.trace, _strict_json(trace_events(reports), indent=1))
    if options.plot is not None:
        plot_timelines(reports, options.plot)
    return 0


def _where(report: LoopReport, source_name: str) -> str:
    """`file:line:col` of the pipeline, or the input's name."""
    return report.location if not report.location.startswith("#") else source_name


def _cost_model(path: str | None) -> CostModel:
    from passes.schedule.engines import CostTableError, default_costs, load_costs

    try:
        return default_costs() if path is None else load_costs(path)
    except CostTableError as error:
        raise ToolFailure(error.located(path or "default costs")) from None


def _pipeline(spec: str) -> PassPipeline:
    try:
        return parse_pipeline(spec, Universe.get_multiverse().all_passes)
    except PipelineError as error:
        raise ToolFailure(f"{TOOL}: error: --passes: {error}") from None


def _strict_json(data: object, indent: int) -> str:
    """JSON without `NaN` or `Infinity` (a cost table keeps every figure finite)."""
    return json.dumps(data, indent=indent, allow_nan=False)


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise ToolFailure(
            f"{TOOL}: error: cannot write {path}: {error.strerror}"
        ) from None


# --------------------------------------------------------------------------- #
# Trace and plot
# --------------------------------------------------------------------------- #


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


if __name__ == "__main__":
    sys.exit(main())
