"""
The schedule model as the orders see it: a loop body simulated for a given
order of its ops, without changing the IR. This is the one place the orders
call the timeline (`passes.schedule.timeline`).

`BodyModel.prepare(loop, model)` does the per-loop work once (the
`LoopModel`: costs, dependences, buffers); `simulate(order)` gives the
timeline of the body with its ops in `order` (indices into `ops`), in time
linear in the ops simulated; `bound` is what no order can beat, and
`modulo_problem()` the body's costs and constraints as the modulo scheduler
takes them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

from xdsl.ir import Operation

from passes.analysis.iterations import Loop
from passes.analysis.summaries import OpSummaries
from passes.schedule.engines import CostModel, OpCost, Unit
from passes.schedule.modulo import ModuloOp
from passes.schedule.recurrence import CycleEdge, max_cycle_ratio
from passes.schedule.steps import Step
from passes.schedule.timeline import LoopModel, Timeline


@dataclass(frozen=True)
class BodyModel:
    """The body of a loop, prepared on a cost model (`LoopModel`)."""

    loop: LoopModel

    @staticmethod
    def prepare(
        loop: Loop,
        model: CostModel,
        cost: Callable[[Operation], OpCost] | None = None,
        summaries: OpSummaries | None = None,
    ) -> BodyModel:
        """
        The model of `loop`'s body (`cost`: the cost of an op, if memoized;
        `summaries`: the accesses of ops, if shared).
        """
        return BodyModel(LoopModel.prepare(loop, model, cost, summaries))

    @property
    def ops(self) -> tuple[Operation, ...]:
        """The body's ops (without its terminator), in program order."""
        return self.loop.ops

    @property
    def model(self) -> CostModel:
        return self.loop.model

    @cached_property
    def op_costs(self) -> list[OpCost]:
        """The cost of each op (of its first step: a scalar op costs the same on each core)."""
        steps, steps_of = self.loop.steps, self.loop.steps_of
        return [steps[steps_of[op][0]].cost for op in self.loop.ops]

    def simulate(self, order: Sequence[int]) -> Timeline:
        """
        The timeline of the body with `ops[i]` for `i` in `order`, in that
        order, simulated until its steady state shows (no more iterations);
        `order` keeps every dependence (not checked: the orders build it on
        the dependence graph, and the pass checks the one it keeps).
        """
        loop = self.loop
        return loop.simulate_steps(loop.steps_in(order), min_iterations=1)

    @cached_property
    def bound(self) -> float:
        """
        A time per loop iteration no order of the body can beat: the busiest
        unit's, or the slowest cycle of the constraints every order has
        (those of `modulo_problem` but the loop-carried readers, which
        depend on the order).
        """
        edges = [edge for edge, every in self._constraints() if every]
        edges += self._in_order_edges()
        cycle = max_cycle_ratio(len(self.loop.steps), edges).ratio
        return max(max(self.loop.plan.busy.values(), default=0.0), cycle)

    def _in_order_edges(self) -> list[CycleEdge]:
        """
        Per step of one unit, the constraint of that unit's program order
        into the next iteration: each order issues it after the steps of
        its unit it depends on, so the first of those (in program order)
        starts in the next iteration only after it has ended.
        """
        steps = self.loop.steps
        ancestors = [0] * len(steps)
        """Per step, the steps of its iteration it depends on, as a bit set."""
        on_unit: dict[Unit, int] = {}
        """Per unit, its steps so far, as a bit set."""
        edges: list[CycleEdge] = []
        for index, step in enumerate(steps):
            reach = 0
            for source, _ in step.same:
                reach |= ancestors[source] | (1 << source)
            ancestors[index] = reach
            if len(step.units) != 1:
                continue
            unit = step.units[0]
            mask = on_unit.get(unit, 0)
            on_unit[unit] = mask | (1 << index)
            shared = reach & mask
            if shared:
                earliest = (shared & -shared).bit_length() - 1
                edges.append(CycleEdge(index, earliest, step.cost.duration, 1))
        return edges

    def modulo_problem(self) -> tuple[list[ModuloOp], list[CycleEdge]]:
        """
        The body as the modulo scheduler sees it, an entry per step of the
        model (an op, or a scalar op once per core): the time it holds each
        unit and its duration, and every constraint of the model as an edge
        (SSA, memory, loop-carried values, the reuse of a tile's buffer by
        its producer's next instance, after the readers of the previous
        tile that come before it in program order), weighing the source's
        duration plus the sync latency where a flag carries it, transit 1
        from the previous iteration.
        """
        ops = [
            ModuloOp(
                {unit.label(True): time for unit, time in step.cost.busy.items()},
                step.cost.duration,
            )
            for step in self.loop.steps
        ]
        return ops, [edge for edge, _ in self._constraints()]

    def _constraints(self) -> list[tuple[CycleEdge, bool]]:
        """The model's constraints as edges, each with whether every order has it."""
        steps = self.loop.steps
        sync = self.loop.model.sync_latency

        def edge(source: int, target: int, flagged: bool, transit: int) -> CycleEdge:
            delay = sync if flagged else 0.0
            return CycleEdge(
                source, target, steps[source].cost.duration + delay, transit
            )

        return [
            *(
                (edge(source, target, flagged, 1), True)
                for target, step in enumerate(steps)
                for source, flagged in step.previous
            ),
            *(
                (edge(source, target, flagged, 0), True)
                for target, step in enumerate(steps)
                for source, flagged in step.same
            ),
            *(
                (edge(source, target, flagged, 0), False)
                for target, step in enumerate(steps)
                for source, flagged in _readers_before(step, target)
            ),
        ]

    def op_keys(self, step_keys: Sequence[float]) -> list[float]:
        """Per op, the smallest of the keys of its steps (`step_keys` by step)."""
        steps_of = self.loop.steps_of
        return [min(step_keys[s] for s in steps_of[op]) for op in self.loop.ops]


def _readers_before(step: Step, index: int) -> list[tuple[int, bool]]:
    """The loop-carried readers of the step's tile that come before it (step `index`)."""
    return [wait for wait in step.carried_readers if wait[0] < index]
