"""
The `pipeline-report` pass: prints the schedule report of every pipeline
loop (`passes.schedule.report`, as text: `passes.schedule.report_text`)
without changing anything; `pypto-report` prints the same.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import ArgSpecParseError, PassFailedException

from passes.diagnostics import cost_model
from passes.schedule.advisor import StagesAdvisor
from passes.schedule.defaults import DEFAULT_PASSES
from passes.schedule.report import pass_pipeline, run_report
from passes.schedule.report_text import render_advice, render_report
from passes.schedule.timeline import MAX_TOTAL_ITERATIONS


@dataclass(frozen=True)
class PipelineReportPass(ModulePass):
    """
    Print the modelled schedule of every pipeline loop to stderr; change nothing.

    The schedule before and, with `passes`, after that pipeline, run on a copy.
    """

    name = "pipeline-report"

    passes: tuple[str, ...] = ()
    """The pipeline to compare with, e.g. `passes=lower-pipeline-loops,canonicalize-io-order`."""
    costs: str = ""
    """A JSON cost table (default: the bundled illustrative one)."""
    suggest_stages: bool = False
    """Also run the stages advisor (with `passes`, else the two passes)."""
    trip: int = 0
    """The trip count of loops with dynamic bounds, for the whole-loop time (0: none)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        model = cost_model(self.name, self.costs)
        spec = ",".join(self.passes) or None
        try:
            pipeline = None if spec is None else pass_pipeline(spec)
            advisor = pass_pipeline(spec or DEFAULT_PASSES)
        except (ValueError, ArgSpecParseError) as error:
            raise PassFailedException(f"pipeline-report: passes: {error}") from None
        if not 0 <= self.trip <= MAX_TOTAL_ITERATIONS:
            raise PassFailedException(
                f"pipeline-report: trip: must be 0 to {MAX_TOTAL_ITERATIONS}"
            )
        trip = self.trip or None
        reports = run_report(ctx, op, model, pipeline, trip=trip)
        texts = [render_report(reports, model, spec)]
        if self.suggest_stages:
            advisor_run = StagesAdvisor(ctx, model, advisor, trip=trip)
            advice = advisor_run.advise(op, reports)
            texts.append(render_advice(advice))
        print("\n".join(texts).rstrip("\n"), file=sys.stderr)
