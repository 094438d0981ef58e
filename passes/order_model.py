"""
The schedule model as the orders see it: a loop body simulated for a given
order of its ops, without changing the IR. This is the one place the orders
call the timeline (`passes.analysis.timeline`).

`BodyModel.prepare(loop, model)` does the per-loop work; `simulate(order)`
gives the timeline of the body with its ops in `order` (indices into `ops`),
and `modulo_problem()` the body's costs and constraints as the modulo
scheduler takes them. Today's `simulate` reads the body from the IR, so
`simulate(order)` puts the ops into `order`, simulates and puts them back
(linear in the body, plus the dependence graph of two iterations per
call); a model that takes an order itself replaces this class alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from xdsl.ir import Block, Operation

from passes.analysis.engines import CostModel
from passes.analysis.graph import schedulable_ops
from passes.analysis.modulo import ModuloOp
from passes.analysis.recurrence import CycleEdge
from passes.analysis.timeline import Loop, Step, Timeline, loop_steps, simulate
from passes.scheduling import relink


@dataclass
class BodyModel:
    """The body of `loop`, whose ops are `ops` (in program order), on `model`."""

    loop: Loop
    ops: tuple[Operation, ...]
    model: CostModel
    _input_steps: tuple[Step, ...] | None = field(default=None, init=False, repr=False)
    """The steps of the input order, once it was simulated."""

    @staticmethod
    def prepare(loop: Loop, model: CostModel) -> BodyModel:
        return BodyModel(loop, tuple(schedulable_ops(loop.body.block)), model)

    @property
    def block(self) -> Block:
        return self.loop.body.block

    def modulo_problem(self) -> tuple[list[ModuloOp], list[CycleEdge]]:
        """
        The body as the modulo scheduler sees it, an entry per op: the time
        it holds each engine and its duration, and every constraint of the
        model as an edge (SSA, memory, loop-carried values, the reuse of a
        tile's buffer by its producer's next instance), weighing the
        source's duration plus the sync delay, transit 1 from the previous
        iteration.
        """
        steps = self._input_steps or loop_steps(self.loop, self.model)
        ops = [
            ModuloOp({str(e): t for e, t in step.cost.busy.items()}, step.cost.duration)
            for step in steps
        ]
        edges = [
            CycleEdge(source, target, steps[source].cost.duration + delay, transit)
            for target, step in enumerate(steps)
            for transit, sources in ((0, step.same), (1, step.previous))
            for source, delay in sources
        ]
        return ops, edges

    def simulate(self, order: Sequence[int]) -> Timeline:
        """The timeline of the body with `ops[i]` for `i` in `order`, in that order."""
        if all(map(int.__eq__, order, range(len(self.ops)))):
            timeline = simulate(self.loop, self.model)
            self._input_steps = timeline.steps
            return timeline
        block = self.block
        last = block.last_op
        terminator = [] if last is None or last is self.ops[-1] else [last]
        relink(block, [*(self.ops[i] for i in order), *terminator])
        try:
            return simulate(self.loop, self.model)
        finally:
            relink(block, [*self.ops, *terminator])
