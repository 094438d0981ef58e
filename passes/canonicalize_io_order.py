"""
The `canonicalize-io-order` pass.

Inside pipeline loops it reorders each block, as far as the dependences
allow, into scalars, then loads, then compute and store per stage, so the
load engine can run ahead of the compute engines. Then it turns every
`pypto.pipeline stages 1` into the `scf.for` it means.

The priorities are `passes.orders.category`; the scheduling on the
dependence graph (`passes.analysis`) is `passes.mechanisms.scheduling`; a block whose
keys' own order keeps every dependence (`passes.analysis.order_check`)
needs no graph; this module drives them. The other orders (option `order`:
`engine`, `modelled`) come from `passes.orders.costed`, imported only for them.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, get_args

from xdsl.context import Context
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.exceptions import PassFailedException
from xdsl.utils.str_enum import StrEnum

from passes.analysis import DependenceGraph, OpSummaries
from passes.analysis.graph import schedulable_ops
from passes.analysis.order_check import keeps_dependences
from passes.diagnostics import fail
from passes.explain import (
    BlockExplanation,
    describe_block,
    explain_order,
    printed_names,
    render_explanations,
)
from passes.mechanisms.demote import demote_to_scf_for
from passes.mechanisms.scheduling import (
    follows_chains,
    keeps_edges,
    move_into_order,
    priority_order,
    sorted_order,
)
from passes.mechanisms.walker import rewrite
from passes.orders.category import rotate_acc_stages, schedule_keys
from pypto_dialect.collector import collector_paused
from pypto_dialect.pipeline import PipelineOp, PipelinePolicy
from pypto_dialect.walks import ancestors, closest, ops_with_regions

if TYPE_CHECKING:
    from passes.analysis.iterations import Loop
    from passes.orders.costed import Orders


class IOOrder(StrEnum):
    """The orders of `canonicalize-io-order` (its option `order`)."""

    CATEGORY = "category"
    """Scalars, loads, then compute and store per stage: PyPTO's order (the default)."""
    ENGINE = "engine"
    """Tiers by engine, loads a bounded distance ahead (`passes.orders.engine`)."""
    MODELLED = "modelled"
    """The fastest of several candidates on the schedule model (`passes.orders.modelled`)."""


OrderName = Literal["category", "engine", "modelled"]
"""The values of `IOOrder`, as the pass's option `order` takes them."""

ORDER_NAMES: tuple[OrderName, ...] = get_args(OrderName)
"""The values of `OrderName`, in `IOOrder`'s order."""


@dataclass(frozen=True)
class CanonicalizeIOOrderPattern(RewritePattern):
    """
    Reorder the blocks of an op inside a pipeline loop by priority, within the
    dependences, with the policy of the innermost enclosing pipeline; at an
    outermost pipeline, once its blocks are done, demote it and every
    pipeline in it (inner first) to `scf.for`. Apply it once per op, regions
    first, so inner blocks are done first, on pipelines of one stage
    (`check_lowered`).
    """

    explain: bool = False
    """Record in `explanations` each op that moved or that a dependence held back."""
    order: IOOrder = IOOrder.CATEGORY
    orders: Orders | None = None
    """The `engine` and `modelled` orders of the run (`passes.orders.costed`), if one is asked for."""
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
        if op is pipeline and not any(
            isinstance(outer, PipelineOp) for outer in ancestors(op)
        ):
            # The nest is done: the blocks around an inner pipeline were
            # reordered with it still a pipeline.
            for nested in ops_with_regions(op):
                if isinstance(nested, PipelineOp):
                    demote_to_scf_for(nested, rewriter)

    def _reorder(
        self, block: Block, pipeline: PipelineOp, rewriter: PatternRewriter
    ) -> None:
        ops = schedulable_ops(block)
        policy = pipeline.policy
        orders = self.orders
        if orders is not None and self.order is IOOrder.MODELLED and ops:
            loop = _body_of(block)
            if loop is not None:
                self._reorder_modelled(block, loop, ops, policy, rewriter)
                return
        chains: Mapping[str, Sequence[int]] = {}
        if orders is not None and self.order is IOOrder.ENGINE:
            keys, chains = orders.engine_priorities(ops, policy)
        else:
            keys = schedule_keys(ops, policy)
        graphs = _Graphs(block, self.summaries)
        order = self._priority_order(ops, keys, chains, graphs)
        self._apply(ops, _Ordered(order, keys, chains), graphs, rewriter, policy)

    def _priority_order(
        self,
        ops: Sequence[Operation],
        keys: Sequence[Any],
        chains: Mapping[str, Sequence[int]],
        graphs: _Graphs,
    ) -> list[int]:
        """
        The priority order of `keys` (each of `chains` in order). The keys'
        own order, when it keeps every dependence, is that order: most
        copied bodies need no dependence graph.
        """
        order = sorted_order(keys)
        if not self.explain and (
            order == list(range(len(ops)))
            or (
                follows_chains(order, chains.values())
                and keeps_dependences(ops, order, self.summaries, self.footprints)
            )
        ):
            return order
        return priority_order(graphs.get(), keys, list(chains.values()))

    def _reorder_modelled(
        self,
        block: Block,
        loop: Loop,
        ops: Sequence[Operation],
        policy: PipelinePolicy,
        rewriter: PatternRewriter,
    ) -> None:
        """
        `order=modelled` on a loop body: the choice made for a body of its
        shape, if its order keeps this body's dependences (it does, the
        shape being the same, unless the shape misses something), else the
        choice of a search.
        """
        assert self.orders is not None
        graphs = _Graphs(block, self.summaries)
        shape, choice = self.orders.recall(loop, ops, policy)
        if choice is not None and not self._keeps(ops, choice.chosen.order, graphs):
            choice = None
        if choice is None:
            keys = schedule_keys(ops, policy)
            category = self._priority_order(ops, keys, {}, graphs)
            choice = self.orders.choose(
                loop,
                policy,
                (category, keys),
                graphs.get,
                shape,
                summaries=self.summaries,
            )
            kept = list(choice.chosen.order)
            # The input and `category` (a priority order) keep every dependence.
            if kept not in (category, list(range(len(ops)))) and not self._keeps(
                ops, kept, graphs
            ):
                fail(
                    loop,
                    f"internal error: order=modelled kept {choice.chosen.name}, "
                    "which breaks a dependence of this loop's body; please report "
                    "this bug",
                )
        chosen = choice.chosen
        notes = tuple(choice.explain()) if self.explain else ()
        ordered = _Ordered(list(chosen.order), chosen.keys, chosen.chains, notes)
        self._apply(ops, ordered, graphs, rewriter, policy)

    def _keeps(
        self, ops: Sequence[Operation], order: Sequence[int], graphs: _Graphs
    ) -> bool:
        """Whether `order` of `ops` keeps every dependence (the graph only if needed)."""
        if keeps_dependences(ops, order, self.summaries, self.footprints):
            return True
        return keeps_edges(graphs.get(), order)

    def _apply(
        self,
        ops: Sequence[Operation],
        ordered: _Ordered,
        graphs: _Graphs,
        rewriter: PatternRewriter,
        policy: PipelinePolicy,
    ) -> None:
        """Put the block's ops in the new order and record why under `explain`."""
        block, order = graphs.block, ordered.order
        moved = (
            move_into_order(block, ops, order, rewriter, report=self.explain)
            if order != list(range(len(ops)))
            else []
        )
        if policy.double_buffer_acc:
            rotate_acc_stages(ops, rewriter)
        if not self.explain:
            return
        steps = explain_order(graphs.get(), ordered.keys, order, moved, ordered.chains)
        if ordered.notes or steps:
            self.explanations.append(
                BlockExplanation(describe_block(block), steps, ordered.notes)
            )


@dataclass(frozen=True)
class _Ordered:
    """A block's new order, the keys that gave it, the chains it kept, explain's notes."""

    order: list[int]
    keys: Sequence[Any]
    chains: Mapping[str, Sequence[int]]
    notes: tuple[str, ...] = ()


@dataclass
class _Graphs:
    """The dependence graph of a block, built when first asked for."""

    block: Block
    summaries: OpSummaries
    graph: DependenceGraph | None = None

    def get(self) -> DependenceGraph:
        if self.graph is None:
            self.graph = DependenceGraph.build(self.block, self.summaries)
        return self.graph


def _body_of(block: Block) -> Loop | None:
    """The loop whose body `block` is, if it is one."""
    owner = block.parent_op()
    if isinstance(owner, scf.ForOp | PipelineOp) and owner.body.block is block:
        return owner
    return None


def _parse_order(text: str) -> IOOrder:
    """The `order` option's value, or a diagnostic naming the known ones."""
    try:
        return IOOrder(text)
    except ValueError:
        shown = text if len(text) <= 40 else text[:40] + "..."
        known = ", ".join(order.value for order in IOOrder)
        raise PassFailedException(
            f"canonicalize-io-order: unknown order '{shown}' (known: {known})"
        ) from None


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


SEARCH_BUDGET = 60_000
"""The default `search-budget`: body ops `order=modelled` simulates at most per block."""


@dataclass(frozen=True)
class CanonicalizeIOOrderPass(ModulePass):
    """
    Order the blocks of pipeline loops as loads first, then compute and stores.

    Every block inside a `pypto.pipeline` is reordered into scalars, loads,
    then compute and store per stage, as far as SSA and memory dependences
    allow (`order=category`, PyPTO's); `order=engine` tiers the ops by
    engine instead, and `order=modelled` keeps the fastest of several
    candidate orders on the schedule model. Then every `pypto.pipeline
    stages 1` is demoted to `scf.for`. A pipeline with more than one stage
    is an error: run `lower-pipeline-loops` first.
    """

    name = "canonicalize-io-order"

    explain: bool = False
    """
    Print to stderr, per block, each op that moved or that a dependence held
    back; with `order=modelled`, the candidates and their modelled times.
    """
    order: OrderName = "category"
    """`category` (PyPTO's), `engine` or `modelled`: see the pass's page."""
    costs: str = ""
    """A JSON cost table for `engine` and `modelled` (default: the bundled one)."""
    search_budget: int = SEARCH_BUDGET
    """
    `modelled` simulates at most this many body ops per block (over its
    candidates and local search; the input and `category` always), and four
    times this per run: lower is faster, higher may find faster orders.
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        order = _parse_order(self.order)
        if self.search_budget < 0:
            raise PassFailedException(
                "canonicalize-io-order: search-budget must be 0 or more, "
                f"got {self.search_budget}"
            )
        orders = None
        if self.costs or order is not IOOrder.CATEGORY:
            # The schedule model, loaded only for these orders (or to check `costs`).
            from passes.orders.costed import Orders  # noqa: PLC0415

            orders = Orders.with_costs(self.costs, self.explain, self.search_budget)
        with collector_paused():  # see pypto_dialect.collector
            self._canonicalize(op, order, orders)

    def _canonicalize(
        self, op: ModuleOp, order: IOOrder, orders: Orders | None
    ) -> None:
        nests = [nested for top in op.ops for nested in ops_with_regions(top)]
        pipelines = [nested for nested in nests if isinstance(nested, PipelineOp)]
        check_lowered(pipelines)
        if not pipelines:
            return  # nothing to reorder or demote: no walk
        pattern = CanonicalizeIOOrderPattern(self.explain, order, orders)
        walker = PatternRewriteWalker(
            pattern, apply_recursively=False, walk_regions_first=True
        )
        rewrite(walker, op, nests)
        if pattern.explanations:
            # Named as the module printed now shows them (`printed_names`).
            text = render_explanations(pattern.explanations, printed_names(op))
            print(text, file=sys.stderr)
