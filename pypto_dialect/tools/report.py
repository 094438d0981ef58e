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
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

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
from pypto_dialect.tools.timelines import (
    PLOT_SUFFIXES,
    TOOL,
    plot_timelines,
    trace_events,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import PassPipeline

    from passes.schedule.advisor import Advice
    from passes.schedule.engines import CostModel
    from passes.schedule.report import LoopReport
    from pypto_dialect.checked import OpSpans


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


if __name__ == "__main__":
    sys.exit(main())
