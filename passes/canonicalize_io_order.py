"""
The `canonicalize-io-order` pass.

Inside pipeline loops it reorders each block, as far as the dependences
allow, into scalars, then loads, then compute and store per stage, so the
load engine can run ahead of the compute engines. Then it turns every
`pypto.pipeline stages 1` into the `scf.for` it means.

The priorities are `passes.io_order_policy`; the scheduling on the
dependence graph (`passes.analysis`) is `passes.scheduling`; a block whose
keys' own order keeps every dependence (`passes.analysis.order_check`)
needs no graph; this module drives them.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern

from passes.analysis import DependenceGraph, OpSummaries
from passes.analysis.graph import schedulable_ops
from passes.analysis.order_check import keeps_dependences
from passes.collector import collector_paused
from passes.demote import demote_to_scf_for
from passes.diagnostics import fail
from passes.explain import (
    BlockExplanation,
    describe_block,
    explain_order,
    printed_names,
    render_explanations,
)
from passes.io_order_policy import rotate_acc_stages, schedule_keys
from passes.scheduling import move_into_order, priority_order, sorted_order
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import ancestors, closest, ops_with_regions


@dataclass(frozen=True)
class CanonicalizeIOOrderPattern(RewritePattern):
    """
    Reorder the blocks of an op inside a pipeline loop by priority, within the
    dependences, with the policy of the innermost enclosing pipeline. Apply
    it once per op, regions first, so inner blocks are done first.
    """

    explain: bool = False
    """Record in `explanations` each op that moved or that a dependence held back."""
    explanations: list[BlockExplanation] = field(default_factory=list[BlockExplanation])
    """Per block, in the order they were reordered; the pass prints them when done."""
    summaries: OpSummaries = field(default_factory=OpSummaries)
    """
    Memoized across the blocks of a nest, which are analysed inside out: valid
    for one walk over one module (the pass builds a new pattern per run).
    """
    footprints: OpSummaries = field(default_factory=lambda: OpSummaries(windows=False))
    """What the ops touch, without windows (`keeps_dependences`); memoized as `summaries`."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not op.regions or (pipeline := closest(op, PipelineOp)) is None:
            return
        for region in op.regions:
            for block in region.blocks:
                self._reorder(block, pipeline, rewriter)

    def _reorder(
        self, block: Block, pipeline: PipelineOp, rewriter: PatternRewriter
    ) -> None:
        ops = schedulable_ops(block)
        policy = pipeline.policy
        keys = schedule_keys(ops, policy)
        # The keys' order, when it keeps every dependence, is the priority
        # order: most copied bodies need no dependence graph.
        order = sorted_order(keys)
        in_place = list(range(len(ops)))
        graph = None
        if self.explain or (
            order != in_place
            and not keeps_dependences(ops, order, self.summaries, self.footprints)
        ):
            graph = DependenceGraph.build(block, self.summaries)
            order = priority_order(graph, keys)
        moved = (
            move_into_order(block, ops, order, rewriter, report=self.explain)
            if order != in_place
            else []
        )
        if policy.double_buffer_acc:
            rotate_acc_stages(ops, rewriter)
        if (
            self.explain
            and graph is not None
            and (steps := explain_order(graph, keys, order, moved))
        ):
            self.explanations.append(BlockExplanation(describe_block(block), steps))


def check_lowered(pipelines: Sequence[PipelineOp]) -> None:
    """
    Raise a diagnostic on a `pypto.pipeline` with more than one stage, the
    first in program order, given the pipelines of a module inner first.
    """
    unlowered = next((op for op in pipelines if op.num_stages > 1), None)
    if unlowered is None:
        return
    # The first in program order is the outermost unlowered loop around the
    # first one found inner first.
    for outer in ancestors(unlowered):
        if isinstance(outer, PipelineOp) and outer.num_stages > 1:
            unlowered = outer
    fail(
        unlowered,
        f"pypto.pipeline with stages {unlowered.num_stages} is not lowered yet: "
        "run lower-pipeline-loops first",
    )


@dataclass(frozen=True)
class CanonicalizeIOOrderPass(ModulePass):
    """
    Order the blocks of pipeline loops as loads first, then compute and stores.

    Every block inside a `pypto.pipeline` is reordered into scalars, loads,
    then compute and store per stage, as far as SSA and memory dependences
    allow; then every `pypto.pipeline stages 1` is demoted to `scf.for`. A
    pipeline with more than one stage is an error: run `lower-pipeline-loops`
    first.
    """

    name = "canonicalize-io-order"

    explain: bool = False
    """Print to stderr, per block, each op that moved or that a dependence held back."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        with collector_paused():  # see passes.collector
            self._canonicalize(op)

    def _canonicalize(self, op: ModuleOp) -> None:
        # One linear walk (not xDSL's walker, whose walk costs the nesting
        # depth per op): the blocks inner first, as the pattern expects.
        ops = [nested for top in op.ops for nested in ops_with_regions(top)]
        pipelines = [nested for nested in ops if isinstance(nested, PipelineOp)]
        check_lowered(pipelines)
        pattern = CanonicalizeIOOrderPattern(self.explain)
        for nested in ops:
            pattern.match_and_rewrite(nested, PatternRewriter(nested))
        for pipeline in pipelines:
            demote_to_scf_for(pipeline, PatternRewriter(pipeline))
        if pattern.explanations:
            # Named as the module printed now shows them (`printed_names`).
            text = render_explanations(pattern.explanations, printed_names(op))
            print(text, file=sys.stderr)
