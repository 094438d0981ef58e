"""
The `engine` and `modelled` orders as the `canonicalize-io-order` driver calls
them, for one run of the pass (`Orders`). The driver imports this module only
when one of them is asked for, so the default order does not load the
schedule model.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

from xdsl.ir import Operation

from passes.analysis import DependenceGraph, OpSummaries
from passes.analysis.graph import schedulable_ops
from passes.analysis.iterations import Loop
from passes.analysis.shape import Shape, Shapes
from passes.diagnostics import cost_model
from passes.orders import modelled as order_modelled
from passes.orders.body_model import BodyModel
from passes.orders.category import ScheduleKey
from passes.orders.engine import engine_chains, engine_keys, prefetch_distance
from passes.orders.modelled import Body, Candidate, Choice, choose_order
from passes.schedule.engines import CostModel, OpCost
from passes.schedule.op_costs import op_cost
from pypto_dialect.pipeline import PipelinePolicy


@dataclass
class Orders:
    """
    The `engine` and `modelled` orders in one run of the pass over a module:
    the cost model, each op's cost computed once (a nest's ops are costed
    once, not once per enclosing block), and for `modelled` the choice made
    for each loop shape (`passes.analysis.shape`): a loop of the shape of
    one searched before takes its choice, without a search.
    """

    model: CostModel
    explain: bool
    budget: int
    """Body ops simulated at most per block by `modelled` (`search-budget`)."""
    left: int = field(init=False)
    """
    Body ops the run may still simulate, over all its blocks: at first
    `MODULE_BLOCKS` blocks' budgets, so that the run's time does not grow
    with the number of blocks (copies, remainders) beyond that.
    """
    costs: dict[Operation, OpCost] = field(default_factory=dict[Operation, OpCost])
    """The cost of each op costed (of a nest, each op once)."""
    signatures: dict[Hashable, OpCost] = field(default_factory=dict[Hashable, OpCost])
    """The costs of the other ops by what they depend on: class, types, properties."""
    totals: dict[Operation, int] = field(default_factory=dict[Operation, int])
    """The ops nested in each op with regions, itself included."""
    shapes: Shapes = field(default_factory=Shapes)
    choices: dict[Shape, Choice] = field(default_factory=dict[Shape, Choice])

    def __post_init__(self) -> None:
        self.left = self.run_budget

    @property
    def run_budget(self) -> int:
        """Body ops the run simulates at most, over all its blocks."""
        return self.budget * order_modelled.MODULE_BLOCKS

    def op_cost(self, op: Operation) -> OpCost:
        """`op_cost` on the model, memoized (the nested ops' costs too)."""
        if (cost := self.costs.get(op)) is not None:
            return cost
        if op.regions:
            return op_cost(op, self.model, self.costs, self.op_cost)
        signature = (
            type(op),
            tuple([value.type for value in op.operands]),
            tuple([result.type for result in op.results]),
            tuple(op.properties.items()),
        )
        cost = self.signatures.get(signature)
        if cost is None:
            cost = self.signatures[signature] = op_cost(op, self.model)
        self.costs[op] = cost
        return cost

    def op_costs(self, ops: Sequence[Operation]) -> list[OpCost]:
        return [self.op_cost(op) for op in ops]

    def engine_priorities(
        self, ops: Sequence[Operation], policy: PipelinePolicy
    ) -> tuple[list[ScheduleKey], dict[str, list[int]]]:
        """The `engine` order's keys of `ops` and its chains (one per unit)."""
        costs = self.op_costs(ops)
        keys = engine_keys(ops, policy, prefetch_distance(ops, costs, self.model))
        return keys, engine_chains(costs)

    @staticmethod
    def with_costs(costs: str, explain: bool, budget: int) -> Orders:
        """
        The orders of a run with the cost table in the file `costs` (or the
        bundled one), `modelled` within `budget` simulated ops per block.
        """
        return Orders(cost_model("canonicalize-io-order", costs), explain, budget)

    def total_ops(self, ops: Sequence[Operation]) -> int:
        """The ops, and the ops nested in them (memoized per op with regions)."""
        return sum(self._total(op) for op in ops)

    def _total(self, op: Operation) -> int:
        if not op.regions:
            return 1
        total = self.totals.get(op)
        if total is None:
            nested = (n for r in op.regions for b in r.blocks for n in b.ops)
            total = self.totals[op] = 1 + sum(self._total(n) for n in nested)
        return total

    def recall(
        self, loop: Loop, ops: Sequence[Operation], policy: PipelinePolicy
    ) -> tuple[Shape | None, Choice | None]:
        """
        The shape of `loop` (whose body's ops are `ops`) ordered with
        `policy`, and the choice made for that shape if there is one; no
        shape for a body that is not searched.
        """
        if self.total_ops(ops) > order_modelled.SEARCH_LIMIT:
            return None, None
        context = (policy.overlap_stores, policy.double_buffer_acc)
        shape = self.shapes.of_loop(loop, context)
        return shape, None if shape is None else self.choices.get(shape)

    def choose(
        self,
        loop: Loop,
        policy: PipelinePolicy,
        category: tuple[Sequence[int], Sequence[ScheduleKey]],
        graph: Callable[[], DependenceGraph],
        shape: Shape | None,
        *,
        summaries: OpSummaries,
    ) -> Choice:
        """
        `order=modelled`'s choice for the body of `loop` (`category`: that
        order and its keys), remembered for `shape` if the body was searched;
        `summaries`, those `graph` is built with.
        """
        order, keys = category
        body = Body(
            len(order),
            self.total_ops(schedulable_ops(loop.body.block)),
            policy,
            Candidate("category", tuple(order), keys),
            lambda: BodyModel.prepare(loop, self.model, self.op_cost, summaries),
            graph,
        )
        budget, name = self.budget, ""
        if self.left < budget:
            budget = self.left
            name = f"the run's search budget of {self.run_budget} simulated ops"
        choice = choose_order(body, self.explain, budget, name)
        self.left = max(0, self.left - choice.simulated)
        if shape is not None and not choice.note:
            self.choices[shape] = choice
        return choice
