"""
The schedule model as the orders see it: a loop body simulated for a given
order of its ops, without changing the IR. This is the one place the orders
call the timeline (`passes.analysis.timeline`).

`BodyModel.prepare(loop, model)` does the per-loop work; `simulate(order)`
gives the timeline of the body with its ops in `order`, and `steps()` the
dependences and costs of the input order (for the recurrence bound and the
modulo scheduler). Today's `simulate` reads the body from the IR, so
`simulate(order)` puts the ops into `order`, simulates and puts them back
(linear in the body, plus the dependence graph of two iterations per
call); a model that takes an order itself replaces this class alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.ir import Block, Operation

from passes.analysis.engines import CostModel
from passes.analysis.graph import schedulable_ops
from passes.analysis.timeline import Loop, Step, Timeline, loop_steps, simulate
from passes.scheduling import relink


@dataclass(frozen=True)
class BodyModel:
    """The body of `loop`, whose ops are `ops` (in program order), on `model`."""

    loop: Loop
    ops: tuple[Operation, ...]
    model: CostModel

    @staticmethod
    def prepare(loop: Loop, model: CostModel) -> BodyModel:
        return BodyModel(loop, tuple(schedulable_ops(loop.body.block)), model)

    @property
    def block(self) -> Block:
        return self.loop.body.block

    def steps(self) -> tuple[Step, ...]:
        """The body's steps (costs and dependences) in its input order."""
        return loop_steps(self.loop, self.model)

    def simulate(self, order: Sequence[int]) -> Timeline:
        """The timeline of the body with `ops[i]` for `i` in `order`, in that order."""
        block = self.block
        last = block.last_op
        terminator = [] if last is None or last is self.ops[-1] else [last]
        relink(block, [*(self.ops[i] for i in order), *terminator])
        try:
            return simulate(self.loop, self.model)
        finally:
            relink(block, [*self.ops, *terminator])
