"""
A timeline simulation of a loop body on the engine model (`engines.py`).

Each core (AIC, AIV; one core when the loop uses one side only) has a scalar
unit that issues its ops in program order, iteration after iteration. A
scalar op (`arith`, loop control, `tile.read` / `tile.write`) and an op with
regions run on the scalar unit at issue: they start when what they depend on
has ended (a tile behind a set_flag / wait_flag pair) and hold the issue
until they end (the scalar unit's busy time counts all of that time). Every
other op is issued into its engine's in-order queue: the issue stalls while
that queue already holds `queue_depth` waiting ops (with depth 0 an op is
issued when it starts). A queued op starts when its
engine is free, when the ops it depends on have ended (SSA values, memory
and loop-carried values, from the dependence graph of two consecutive
iterations), and when the buffers it writes are free: each tile an op
produces has one buffer, which the op's next instance overwrites, so it
waits until the last consumer of the previous tile in that buffer has ended
(ping-pong is exactly more buffers). A tile bound to a slot of a declared
allocation is in that slot (the binding itself costs nothing): a rotation
through F slots (`i % F`) waits for the readers F iterations back.

A dependence between two engines (not a scalar value, which travels in a
register) is a flag: `sync_latency` cycles, and one of `events_per_pair`
event ids of its ordered pair of engines, held from the flag's set to its
wait: a wait beyond the budget waits for the earliest one to be released.

Every start time is a max-plus expression of earlier ones, so the schedule
becomes periodic: the simulation runs until the last iterations repeat
earlier ones shifted by a constant, which gives the exact steady-state time
per iteration (or, if that does not happen within `max_iterations`, the
average over the second half, which still cannot beat the busiest engine).

`LoopModel.prepare` does the per-loop work once (costs, dependences,
buffers); `LoopModel.simulate(order)` then costs time linear in the ops
simulated, for any legal order of the body's ops, and `total_time(n)` gives
the time of n iterations from an empty pipeline (warm-up and drain): it
simulates until the schedule is periodic and extrapolates the last period
(whatever n), or, if it never becomes periodic, all n iterations.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

from xdsl.ir import Operation

from passes.analysis.graph import schedulable_ops
from passes.analysis.iterations import Loop
from passes.analysis.summaries import OpSummaries
from passes.schedule.engines import (
    Core,
    CostModel,
    OpCost,
    Unit,
)
from passes.schedule.simulation import Plan, Run, Schedule, average_period, peak_bytes
from passes.schedule.steps import DependenceEdge, Step, build_steps, dependence_edges
from pypto_dialect.types import MemorySpace

MAX_ITERATIONS = 256
"""Iterations simulated at most while looking for the periodic steady state."""
MIN_ITERATIONS = 8
"""Iterations simulated at least (a few to draw)."""
MAX_TOTAL_ITERATIONS = 2**64 - 1
"""
The largest iteration count `total_time` takes (a user's trip count is
checked against it): that of an `index` loop from its smallest value to its
largest. Its cost does not grow with the count once the schedule is periodic.
"""
MAX_SIMULATED_ITERATIONS = 1 << 20
"""The most iterations `total_time` simulates for a schedule that never becomes periodic."""


class NotPeriodic(ValueError):
    """`total_time` asked for more iterations than it simulates of a schedule that is not periodic."""


@dataclass(frozen=True)
class Interval:
    """One op of one simulated iteration."""

    iteration: int
    step: int
    reached: float
    """When its core's issue reached it; it is issued later if its queue is full."""
    issued: float
    """When its core issued it (into its engine's queue, or onto the scalar unit)."""
    start: float
    end: float
    reason: str
    """Why it started after it was issued (empty if it did not wait)."""


@dataclass(frozen=True)
class Timeline:
    """The simulated schedule of a loop body and its steady-state figures."""

    loop: Loop | None
    steps: tuple[Step, ...]
    order: tuple[int, ...]
    """The steps in the order they were issued within an iteration."""
    starts: Schedule
    """Per simulated iteration, the start of each step (by step index)."""
    ends: Schedule
    reached: Schedule
    issued: Schedule
    reasons: tuple[tuple[str, ...], ...]
    time_per_iteration: float
    converged: bool
    """Whether the exact periodic steady state was found."""
    period: int
    """Iterations after which the schedule repeats (1 if it was not found)."""
    busy: Mapping[Unit, float]
    """Busy time per iteration of each unit the body uses."""
    capacities: Mapping[MemorySpace, int]
    cores: tuple[Core, ...]
    """The cores of a two-core loop, () for a loop on one core."""

    @cached_property
    def peak_bytes(self) -> Mapping[MemorySpace, int]:
        """
        Bytes needed per memory space: the sum over pools of each pool's peak
        (computed when first asked: a sort of the simulated buffers' lives).
        """
        return peak_bytes(self.steps, self.starts, self.ends)

    @property
    def bound(self) -> float:
        """The resource bound: the busiest unit's time per iteration."""
        return max(self.busy.values(), default=0.0)

    @property
    def bottleneck(self) -> Unit | None:
        return max(self.busy, key=self.busy.__getitem__, default=None)

    def label(self, unit: Unit) -> str:
        """The unit's name: with its core only in a two-core loop."""
        return unit.label(bool(self.cores))

    @property
    def efficiency(self) -> float:
        """bound / modelled time: 1 when the busiest unit never waits."""
        if self.time_per_iteration == 0:
            return 1.0
        return self.bound / self.time_per_iteration

    @property
    def over_capacity(self) -> dict[MemorySpace, int]:
        """The memory spaces whose peak exceeds their capacity, with the peak."""
        return {
            space: peak
            for space, peak in self.peak_bytes.items()
            if peak > self.capacities[space]
        }

    def intervals(self, iterations: int | None = None) -> Iterator[Interval]:
        """The ops of the first `iterations` simulated iterations, in issue order."""
        for n in range(len(self.starts[:iterations])):
            for i in self.order:
                yield Interval(
                    n,
                    i,
                    self.reached[n][i],
                    self.issued[n][i],
                    self.starts[n][i],
                    self.ends[n][i],
                    self.reasons[n][i],
                )


@dataclass(frozen=True)
class LoopModel:
    """
    A loop body prepared for simulation: its steps (costs, dependences,
    buffers), built once. `simulate(order)` and `total_time(n, order)` run
    any legal order of the body's ops (a permutation of `ops` that keeps
    every dependence) without changing the IR, in time linear in the ops
    simulated.
    """

    loop: Loop | None
    ops: tuple[Operation, ...]
    """The body's ops (without its terminator), in program order."""
    steps: tuple[Step, ...]
    steps_of: Mapping[Operation, tuple[int, ...]]
    """The steps of each op: one, or one per core for a scalar op of a two-core loop."""
    cores: tuple[Core, ...]
    model: CostModel
    edges: tuple[DependenceEdge, ...]
    """The dependences between `ops` (SSA, memory, loop-carried; no buffer reuse)."""

    @classmethod
    def prepare(
        cls,
        loop: Loop,
        model: CostModel,
        cost: Callable[[Operation], OpCost] | None = None,
        summaries: OpSummaries | None = None,
    ) -> LoopModel:
        """
        The steps of `loop`'s body, with loop-carried dependences; `cost`
        gives the cost of an op on `model` (default: `op_cost`; a caller
        may memoize it), `summaries` the accesses of its ops (a caller may
        share them).
        """
        ops = schedulable_ops(loop.body.block)
        edges = dependence_edges(ops, loop, summaries)
        return cls._build(loop, ops, edges, model, cost)

    def with_model(self, model: CostModel) -> LoopModel:
        """The same body under another cost table: its ops and dependences kept."""
        if model is self.model:
            return self
        return self._build(self.loop, list(self.ops), self.edges, model)

    @classmethod
    def straight(cls, ops: Sequence[Operation], model: CostModel) -> LoopModel:
        """Ops of a block run once (e.g. a loop's remainder), as a body without carried edges."""
        return cls._build(None, list(ops), dependence_edges(ops, None), model)

    @classmethod
    def _build(
        cls,
        loop: Loop | None,
        ops: list[Operation],
        edges: Sequence[DependenceEdge],
        model: CostModel,
        cost_of: Callable[[Operation], OpCost] | None = None,
    ) -> LoopModel:
        steps, steps_of, cores = build_steps(loop, ops, edges, model, cost_of)
        return cls(loop, tuple(ops), steps, steps_of, cores, model, tuple(edges))

    @cached_property
    def plan(self) -> Plan:
        """What every simulation of the body reads, whatever the order (built once)."""
        return Plan.of(self.steps)

    def step_order(self, order: Sequence[Operation] | None = None) -> tuple[int, ...]:
        """
        The steps in issue order for an order of the body's ops (program
        order by default); `ValueError` if it is not a permutation of the
        ops or puts an op before one it depends on.
        """
        if order is None:
            return tuple(range(len(self.steps)))
        if len(order) != len(self.ops) or set(order) != set(self.ops):
            raise ValueError("the order is not a permutation of the body's ops")
        indices = tuple(s for op in order for s in self.steps_of[op])
        position = {step: n for n, step in enumerate(indices)}
        for n, step in enumerate(indices):
            for source, _ in self.steps[step].same:
                if position[source] > n:
                    raise ValueError(
                        f"the order puts {self.steps[step].op.name} before "
                        f"{self.steps[source].op.name}, which it depends on"
                    )
        return indices

    @cached_property
    def _op_steps(self) -> tuple[tuple[int, ...], ...]:
        """The steps of each op, by its index in `ops`."""
        return tuple(self.steps_of[op] for op in self.ops)

    def steps_in(self, order: Sequence[int]) -> tuple[int, ...]:
        """
        The steps in issue order for an order of the ops given by their
        indices, not checked: for orders built to keep every dependence
        (the candidates of `order=modelled`); `step_order` checks.
        """
        op_steps = self._op_steps
        return tuple(step for index in order for step in op_steps[index])

    def simulate(
        self,
        order: Sequence[Operation] | None = None,
        *,
        min_iterations: int = MIN_ITERATIONS,
        max_iterations: int = MAX_ITERATIONS,
    ) -> Timeline:
        """The timeline of the body run back to back in `order`, and its steady state."""
        return self.simulate_steps(
            self.step_order(order),
            min_iterations=min_iterations,
            max_iterations=max_iterations,
        )

    def simulate_steps(
        self,
        indices: tuple[int, ...],
        *,
        min_iterations: int = MIN_ITERATIONS,
        max_iterations: int = MAX_ITERATIONS,
    ) -> Timeline:
        """`simulate` with the steps in issue order (`step_order`, `steps_in`)."""
        run = Run(self.steps, self.plan, self.model, indices)
        period = run.until_periodic(min_iterations, max_iterations)
        starts, ends = tuple(run.starts), tuple(run.ends)
        time, repeat = (
            (average_period(starts, ends), 1)
            if period is None
            else (period.time_per_iteration, period.iterations)
        )
        return Timeline(
            self.loop,
            self.steps,
            indices,
            starts,
            ends,
            tuple(run.reached),
            tuple(run.issued),
            tuple(run.reasons),
            time,
            period is not None,
            repeat,
            self.plan.busy,
            self.model.capacities,
            self.cores,
        )

    def total_time(
        self, iterations: int, order: Sequence[Operation] | None = None
    ) -> float:
        """
        The time of `iterations` iterations from an empty pipeline to the end
        of the last op (warm-up and drain included), at most
        `MAX_TOTAL_ITERATIONS` (`ValueError` beyond): simulated until the
        schedule is periodic (as `simulate` finds it), the rest extrapolated
        (`Run.last_end`); a schedule that is not periodic within
        `MAX_ITERATIONS` is simulated to the end, at most
        `MAX_SIMULATED_ITERATIONS` (`NotPeriodic` beyond).
        """
        if not 0 <= iterations <= MAX_TOTAL_ITERATIONS:
            raise ValueError(
                f"cannot simulate more than {MAX_TOTAL_ITERATIONS} iterations"
            )
        run = Run(self.steps, self.plan, self.model, self.step_order(order))
        period = run.until_periodic(MIN_ITERATIONS, min(iterations, MAX_ITERATIONS))
        if period is None:
            if iterations > MAX_SIMULATED_ITERATIONS:
                raise NotPeriodic(
                    f"cannot simulate more than {MAX_SIMULATED_ITERATIONS} "
                    f"iterations of a schedule not periodic within {MAX_ITERATIONS}"
                )
            for _ in range(len(run.ends), iterations):
                run.iteration()
        return run.last_end(iterations, period)


def simulate(
    loop: Loop,
    model: CostModel,
    *,
    min_iterations: int = MIN_ITERATIONS,
    max_iterations: int = MAX_ITERATIONS,
) -> Timeline:
    """The timeline of `loop`'s body run back to back in program order, and its steady state."""
    return LoopModel.prepare(loop, model).simulate(
        min_iterations=min_iterations, max_iterations=max_iterations
    )
