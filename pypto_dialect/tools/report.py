"""
`pypto-report`: the modelled schedule of a kernel's pipeline loops, like
`llvm-mca` for tile programs.

    pypto-report kernel.mlir [--passes PIPELINE] [--costs FILE] [--json OUT]
                 [--trace OUT.json] [--plot OUT.svg] [--suggest-stages]

Per `pypto.pipeline`: the engines' busy time, the resource bound, the
modelled time per original iteration and the efficiency, before and after
`--passes`, and the peak bytes per memory space against the capacities
(`passes.pipeline_report`, rendered by `passes.pipeline_report_text`, on
the engine model of `passes.analysis`). `--trace` writes Chrome trace-event
JSON (one track per engine), `--plot` a swimlane picture (needs matplotlib:
the `report` extra), `--suggest-stages` the stages advisor. Problems are
`error:` lines on stderr and exit code 1, never a traceback; any other
exception is an internal error (exit code 70).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import PassPipeline
from xdsl.utils.exceptions import ArgSpecParseError, ParseError

from passes.analysis.engines import (
    CostModel,
    CostTableError,
    Engine,
    default_costs,
    default_costs_text,
    load_costs,
)
from passes.analysis.timeline import Timeline
from passes.io_order_policy import effective_membership
from passes.pipeline_report import (
    DEFAULT_PASSES,
    MAX_STAGES,
    SHOWN_ITERATIONS,
    Advice,
    LoopReport,
    StagesAdvisor,
    max_stages_problem,
    pass_pipeline,
    report_json,
    run_report,
)
from passes.pipeline_report_text import render_advice, render_report
from pypto_dialect.checked import OpSpans, parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import parse_pypto
from pypto_dialect.tools.diagnostics import (
    ToolFailure,
    UnreadableInput,
    add_traceback_flag,
    decode_source,
    int_at_least,
    located_error,
    report_internal_error,
    reported_diagnostics,
    version_text,
)
from pypto_dialect.walks import walk_ops

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
        help="draw the timelines (.svg, .png, .pdf; needs matplotlib)",
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
        help=f"the largest stages the advisor tries (default: {MAX_STAGES})",
    )
    parser.add_argument("--version", action="version", version=version_text(TOOL))
    add_traceback_flag(parser)
    return parser


def _report(options: argparse.Namespace) -> int:
    if options.print_costs:
        print(default_costs_text(), end="")
        return 0
    if (problem := max_stages_problem(options.max_stages)) is not None:
        raise ToolFailure(f"{TOOL}: error: --max-stages: {problem}")
    model = _cost_model(options.costs)
    ctx = pypto_context()
    source_name = "<stdin>" if options.kernel == "-" else options.kernel
    op_spans: OpSpans = {}
    module = load_input(ctx, options.kernel, op_spans)
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
        reports = run_report(ctx, module, model, pipeline, prepare)
    print(render_report(reports, model, options.passes), end="")
    for report in reports:
        for warning in report.warnings():
            print(f"{_where(report, source_name)}: warning: {warning}", file=sys.stderr)
    advice: list[Advice] = []
    if options.suggest_stages:
        advisor = StagesAdvisor(
            ctx, model, pipeline or _pipeline(DEFAULT_PASSES), options.max_stages
        )
        advice = advisor.advise(module, reports)
        print(render_advice(advice), end="")
    if options.json is not None:
        data = report_json(reports, model, options.passes, advice)
        _write(options.json, json.dumps({"input": source_name, **data}, indent=2))
    if options.trace is not None:
        _write(options.trace, json.dumps(trace_events(reports), indent=1))
    if options.plot is not None:
        plot_timelines(reports, options.plot)
    return 0


def _where(report: LoopReport, source_name: str) -> str:
    """`file:line:col` of the pipeline, or the input's name."""
    return report.location if not report.location.startswith("#") else source_name


def _cost_model(path: str | None) -> CostModel:
    try:
        return default_costs() if path is None else load_costs(path)
    except CostTableError as error:
        raise ToolFailure(error.located(path or "default costs")) from None


def _pipeline(spec: str) -> PassPipeline:
    try:
        return pass_pipeline(spec)
    except ValueError as error:
        raise ToolFailure(
            f"{TOOL}: error: --passes: {error} "
            "(`pypto-opt --help` lists the available passes)"
        ) from None
    except ArgSpecParseError as error:
        raise ToolFailure(f"{TOOL}: error: --passes: {error}") from None


def _write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text + "\n", encoding="utf-8")
    except OSError as error:
        raise ToolFailure(
            f"{TOOL}: error: cannot write {path}: {error.strerror}"
        ) from None


# --------------------------------------------------------------------------- #
# Input
# --------------------------------------------------------------------------- #


def _parse_mlir(ctx: Context, text: str, name: str, op_spans: OpSpans) -> ModuleOp:
    return parse_module(ctx, text, name, op_spans=op_spans)


def _parse_pypto(ctx: Context, text: str, name: str, op_spans: OpSpans) -> ModuleOp:
    return parse_pypto(ctx, text, name, op_spans=op_spans)


FRONTENDS: Mapping[str, Callable[[Context, str, str, OpSpans], ModuleOp]] = {
    ".mlir": _parse_mlir,
    ".pypto": _parse_pypto,
    ".py": _parse_pypto,
}
"""Input readers by file suffix (`-`, stdin, is MLIR), as for `pypto-opt`."""


def load_input(ctx: Context, path: str, op_spans: OpSpans) -> ModuleOp:
    """The module in `path`, read by the frontend of its suffix."""
    name = "<stdin>" if path == "-" else path
    suffix = ".mlir" if path == "-" else Path(path).suffix
    frontend = FRONTENDS.get(suffix)
    if frontend is None:
        known = ", ".join(FRONTENDS)
        problem = (
            f"unknown file extension '{suffix}'" if suffix else "no file extension"
        )
        raise ToolFailure(
            f"{TOOL}: error: cannot read {name}: {problem} (known: {known})"
        )
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        text = decode_source(data)
    except (OSError, UnreadableInput) as error:
        reason = error.strerror if isinstance(error, OSError) else str(error)
        raise ToolFailure(f"{TOOL}: error: cannot read {name}: {reason}") from None
    try:
        return frontend(ctx, text, name, op_spans)
    except ParseError as error:
        raise ToolFailure(located_error(error.span, error.msg)) from None


# --------------------------------------------------------------------------- #
# Trace and plot
# --------------------------------------------------------------------------- #


def _states(report: LoopReport) -> list[tuple[str, Timeline, int]]:
    """(label, timeline, iterations shown) of the states of a loop."""
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
            engines = [e for e in Engine if e in timeline.busy]
            tids = {engine: tid for tid, engine in enumerate(engines, 1)}
            for engine, tid in tids.items():
                events.append(_metadata("thread_name", pid, tid, str(engine)))
                events.append(
                    {
                        **_metadata("thread_sort_index", pid, tid, ""),
                        "args": {"sort_index": tid},
                    }
                )
            for interval in timeline.intervals(shown):
                step = timeline.steps[interval.step]
                for engine in step.cost.engines:
                    events.append(
                        {
                            "name": _label(step.op),
                            "cat": str(engine),
                            "ph": "X",
                            "pid": pid,
                            "tid": tids[engine],
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


def _metadata(kind: str, pid: int, tid: int, name: str) -> dict[str, Any]:
    return {"name": kind, "ph": "M", "pid": pid, "tid": tid, "args": {"name": name}}


def plot_timelines(reports: Sequence[LoopReport], path: str) -> None:
    """Draw the swimlanes of every loop and state into `path` (format by suffix)."""
    try:
        import matplotlib  # noqa: PLC0415 (an optional dependency)

        matplotlib.use("Agg")
        # Text as text, and no random ids or dates: small, reproducible SVGs.
        matplotlib.rcParams["svg.fonttype"] = "none"
        matplotlib.rcParams["svg.hashsalt"] = TOOL
        from matplotlib import pyplot  # noqa: PLC0415
    except ImportError:
        raise ToolFailure(
            f"{TOOL}: error: --plot needs matplotlib: "
            "pip install 'pypto-dialect[report]' (or pip install matplotlib)"
        ) from None
    panels = [(report, *state) for report in reports for state in _states(report)]
    if not panels:
        raise ToolFailure(f"{TOOL}: error: --plot: no pypto.pipeline loops to draw")
    heights = [len(state[2].busy) + 1.5 for state in panels]
    figure, axes = pyplot.subplots(
        len(panels),
        1,
        figsize=(11, 0.32 * sum(heights) + 0.6),
        height_ratios=heights,
        squeeze=False,
    )
    palette = pyplot.get_cmap("tab10")
    for axis, (report, label, timeline, shown) in zip(axes[:, 0], panels, strict=True):
        copies = report.after.copies if label == "after" and report.after else 1
        engines = [e for e in Engine if e in timeline.busy]
        lanes = {engine: lane for lane, engine in enumerate(reversed(engines))}
        end = max(
            (i.end for state in _states(report) for i in state[1].intervals(state[2])),
            default=1.0,
        )
        for interval in timeline.intervals(shown):
            step = timeline.steps[interval.step]
            original = _original_iteration(step.op, interval.iteration, copies)
            color = "lightgrey" if original is None else palette(original % 10)
            width = interval.end - interval.start
            for engine in step.cost.engines:
                axis.broken_barh(
                    [(interval.start, width)],
                    (lanes[engine] - 0.4, 0.8),
                    facecolors=color,
                    edgecolors="black",
                    linewidth=0.3,
                )
                if width > end / 40:
                    axis.text(
                        interval.start + width / 2,
                        lanes[engine],
                        step.op.name.rsplit(".", 1)[-1],
                        ha="center",
                        va="center",
                        fontsize=6,
                    )
        figures = report.before if label != "after" else report.after
        assert figures is not None
        axis.set_title(
            f"{report.name}: {label}: {figures.time:.1f} cycles per original "
            f"iteration, efficiency {timeline.efficiency:.1%}",
            fontsize=8,
            loc="left",
        )
        axis.set_yticks(
            range(len(engines)), [str(e) for e in reversed(engines)], fontsize=7
        )
        axis.set_xlim(0, end * 1.01)
        axis.tick_params(axis="x", labelsize=7)
    axes[-1, 0].set_xlabel("cycles (colour: original iteration)", fontsize=7)
    figure.tight_layout()
    try:
        metadata = {"Date": None} if Path(path).suffix in (".svg", ".pdf") else None
        figure.savefig(path, metadata=metadata)  # pyright: ignore[reportUnknownMemberType]
    except (OSError, ValueError) as error:
        raise ToolFailure(
            f"{TOOL}: error: --plot: cannot write {path}: {error}"
        ) from None
    finally:
        pyplot.close(figure)


if __name__ == "__main__":
    sys.exit(main())
