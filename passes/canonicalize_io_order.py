"""
The `canonicalize-io-order` pass.

Inside pipeline loops it reorders each block, as far as the dependences
allow, into scalars, then loads, then compute and store per stage, so the
load engine can run ahead of the compute engines. Then it turns every
`pypto.pipeline stages 1` into the `scf.for` it means.

The priorities are `passes.io_order_policy`; the scheduling on the
dependence graph (`passes.analysis`) is `passes.scheduling`; this module
drives them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from passes.analysis import DependenceGraph, OpSummaries
from passes.demote import demote_to_scf_for
from passes.diagnostics import fail
from passes.explain import describe_block, explain_order
from passes.io_order_policy import rotate_acc_stages, schedule_key
from passes.scheduling import move_into_order, priority_order
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import closest, walk_ops


@dataclass(frozen=True)
class CanonicalizeIOOrderPattern(RewritePattern):
    """
    Reorder the blocks of an op inside a pipeline loop by priority, within the
    dependences, with the policy of the innermost enclosing pipeline. Apply
    it once per op, regions first, so inner blocks are done first.
    """

    explain: bool = False
    summaries: OpSummaries = field(default_factory=OpSummaries)
    """
    Memoized across the blocks of a nest, which are analysed inside out: valid
    for one walk over one module (the pass builds a new pattern per run).
    """

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.regions or (pipeline := closest(op, PipelineOp)) is None:
            return
        for region in op.regions:
            for block in region.blocks:
                self._reorder(block, pipeline, rewriter)

    def _reorder(
        self, block: Block, pipeline: PipelineOp, rewriter: PatternRewriter
    ) -> None:
        graph = DependenceGraph.build(block, self.summaries)
        keys = [schedule_key(op, i, pipeline) for i, op in enumerate(graph.ops)]
        order = priority_order(graph, keys)
        moved = (
            move_into_order(block, graph.ops, order, rewriter)
            if order != list(range(len(order)))
            else []
        )
        if pipeline.policy.double_buffer_acc:
            rotate_acc_stages(graph.ops, rewriter)
        if self.explain and (lines := explain_order(graph, keys, order, moved)):
            header = f"canonicalize-io-order: {describe_block(block)}:"
            print(header, *lines, sep="\n", file=sys.stderr)


def check_lowered(module: ModuleOp) -> None:
    """Raise a diagnostic on the first `pypto.pipeline` with more than one stage."""
    for op in walk_ops(module):
        if isinstance(op, PipelineOp) and op.num_stages > 1:
            fail(
                op,
                f"pypto.pipeline with stages {op.num_stages} is not lowered yet: "
                "run lower-pipeline-loops first",
            )


@dataclass(frozen=True)
class CanonicalizeIOOrderPass(ModulePass):
    """
    Reorder every block inside a `pypto.pipeline` into scalars, loads, then
    compute and store per stage, as far as SSA and memory dependences allow;
    then demote every `pypto.pipeline stages 1` to `scf.for`. A pipeline with
    more than one stage is an error: run `lower-pipeline-loops` first.
    """

    name = "canonicalize-io-order"

    explain: bool = False
    """Print to stderr, per block, each op that moved or that a dependence held back."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        check_lowered(op)
        # Linear walks (not xDSL's walker, whose walk costs the nesting depth
        # per op): the blocks inner first, as the pattern expects.
        ops = [nested for top in op.ops for nested in walk_ops(top, regions_first=True)]
        pipelines = [nested for nested in ops if isinstance(nested, PipelineOp)]
        pattern = CanonicalizeIOOrderPattern(self.explain)
        for nested in ops:
            if nested.regions:
                pattern.match_and_rewrite(nested, PatternRewriter(nested))
        for pipeline in pipelines:
            demote_to_scf_for(pipeline, PatternRewriter(pipeline))
