"""
The schedule model as the orders see it: a loop body simulated for a given
order of its ops, without changing the IR. This is the one place the orders
call the timeline (`passes.analysis.timeline`).

`BodyModel.prepare(loop, model)` does the per-loop work once (the
`LoopModel`: costs, dependences, buffers); `simulate(order)` gives the
timeline of the body with its ops in `order` (indices into `ops`), in time
linear in the ops simulated, and `modulo_problem()` the body's costs and
constraints as the modulo scheduler takes them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Operation

from passes.analysis.engines import CostModel
from passes.analysis.modulo import ModuloOp
from passes.analysis.recurrence import CycleEdge
from passes.analysis.timeline import Loop, LoopModel, Timeline


@dataclass(frozen=True)
class BodyModel:
    """The body of a loop, prepared on a cost model (`LoopModel`)."""

    loop: LoopModel

    @staticmethod
    def prepare(loop: Loop, model: CostModel) -> BodyModel:
        return BodyModel(LoopModel.prepare(loop, model))

    @property
    def ops(self) -> tuple[Operation, ...]:
        """The body's ops (without its terminator), in program order."""
        return self.loop.ops

    @property
    def model(self) -> CostModel:
        return self.loop.model

    def simulate(self, order: Sequence[int]) -> Timeline:
        """The timeline of the body with `ops[i]` for `i` in `order`, in that order."""
        ops = self.loop.ops
        return self.loop.simulate([ops[i] for i in order])

    def modulo_problem(self) -> tuple[list[ModuloOp], list[CycleEdge]]:
        """
        The body as the modulo scheduler sees it, an entry per step of the
        model (an op, or a scalar op once per core): the time it holds each
        unit and its duration, and every constraint of the model as an edge
        (SSA, memory, loop-carried values, the reuse of a tile's buffer by
        its producer's next instance, after the readers of the previous
        tile that come before it), weighing the source's duration plus the
        sync latency where a flag carries it, transit 1 from the previous
        iteration.
        """
        steps = self.loop.steps
        sync = self.loop.model.sync_latency
        ops = [
            ModuloOp(
                {unit.label(True): time for unit, time in step.cost.busy.items()},
                step.cost.duration,
            )
            for step in steps
        ]
        edges = [
            CycleEdge(source, target, steps[source].cost.duration + flag * sync, 1)
            for target, step in enumerate(steps)
            for source, flag in step.previous
        ]
        edges += [
            CycleEdge(source, target, steps[source].cost.duration + flag * sync, 0)
            for target, step in enumerate(steps)
            for source, flag in (
                *step.same,
                *(wait for wait in step.carried_readers if wait[0] < target),
            )
        ]
        return ops, edges

    def op_keys(self, step_keys: Sequence[float]) -> list[float]:
        """Per op, the smallest of the keys of its steps (`step_keys` by step)."""
        steps_of = self.loop.steps_of
        return [min(step_keys[s] for s in steps_of[op]) for op in self.loop.ops]
