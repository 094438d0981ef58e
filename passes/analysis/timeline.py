"""
A timeline simulation of a loop body on the engine model (`engines.py`).

Each core (AIC, AIV; one core when the loop uses one side only) has a scalar
unit that issues its ops in program order, iteration after iteration. A
scalar op (`arith`, loop control, `tile.read` / `tile.write`) and an op with
regions run on the scalar unit at issue: they start when what they depend on
has ended (a tile behind a set_flag / wait_flag pair) and hold the issue
until they end. Every other op is issued into its engine's in-order queue:
the issue stalls while that queue already holds `queue_depth` waiting ops
(with depth 0 an op is issued when it starts). A queued op starts when its
engine is free, when the ops it depends on have ended (SSA values, memory
and loop-carried values, from the dependence graph of two consecutive
iterations), and when the buffers it writes are free: each tile an op
produces has one buffer, which the op's next instance overwrites, so it
waits until the last consumer of the previous tile in that buffer has ended
(ping-pong is exactly more buffers).

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
the time of n iterations from an empty pipeline (warm-up and drain).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.engines import (
    Core,
    CostModel,
    Engine,
    OpCost,
    Unit,
    issuing_core,
    op_cost,
    padded_bytes,
    updated_in_place,
)
from passes.analysis.graph import DependenceGraph, schedulable_ops
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr, StagePair
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import RowReductionOp
from pypto_dialect.types import MemorySpace, TileType

Loop = scf.ForOp | PipelineOp

Schedule = tuple[tuple[float, ...], ...]
"""Per simulated iteration, a time per step of the body."""

MAX_ITERATIONS = 256
"""Iterations simulated at most while looking for the periodic steady state."""
MIN_ITERATIONS = 8
"""Iterations simulated at least (a few to draw)."""
MAX_PERIOD = 8
"""The longest period (in iterations) the steady state is looked for with."""
MAX_TOTAL_ITERATIONS = 1 << 20
"""The most iterations `total_time` simulates (a user's trip count is checked against it)."""


Use = tuple[int, bool]
"""A step that uses a tile, and whether it updates it in place."""
Wait = tuple[int, bool]
"""A step to wait for, and whether a flag (set_flag / wait_flag) carries it."""

_SCALAR_UNIT = Unit(None, Engine.SCALAR)


class Reason:
    """Why an op started later than it was issued."""

    DEPENDENCE = "waits for"
    ENGINE = "engine busy"


@dataclass(frozen=True)
class Step:
    """One op of the loop body (on one core), as the simulation sees it."""

    op: Operation
    cost: OpCost
    cores: tuple[Core | None, ...]
    """The cores whose issue reaches it (one, or both for a two-core op with regions)."""
    blocking: bool
    """Runs on the scalar unit (or has regions): it holds the issue until it ends."""
    register_only: bool
    """A scalar op without tiles: its results travel in registers, not by a flag."""
    same: tuple[Wait, ...]
    """Steps of the same iteration to wait for."""
    previous: tuple[Wait, ...]
    """Steps of the previous iteration to wait for."""
    carried_readers: tuple[Wait, ...]
    """Steps that read its previous tile: waited for in this iteration if they come first."""
    tiles: Mapping[MemorySpace, int]
    """Padded bytes of the tiles it produces, by memory space."""
    pool: tuple[StagePair, ...]
    """Its `pypto.pipeline_membership`: tiles of different pools never share memory."""
    consumers: tuple[Use, ...]
    """The steps of the same iteration that use its tiles."""
    next_consumers: tuple[Use, ...]
    """The steps of the next iteration that use its tiles (loop-carried)."""
    scratch: Mapping[MemorySpace, int]
    """Bytes of the buffers it needs only while it runs, by memory space."""

    @property
    def units(self) -> tuple[Unit, ...]:
        return self.cost.units


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
    peak_bytes: Mapping[MemorySpace, int]
    """Bytes needed per memory space: the sum over pools of each pool's peak."""
    capacities: Mapping[MemorySpace, int]
    cores: tuple[Core, ...]
    """The cores of a two-core loop, () for a loop on one core."""

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


# --------------------------------------------------------------------------- #
# The per-loop work
# --------------------------------------------------------------------------- #


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

    @classmethod
    def prepare(cls, loop: Loop, model: CostModel) -> LoopModel:
        """The steps of `loop`'s body, with loop-carried dependences."""
        ops = schedulable_ops(loop.body.block)
        return cls._build(loop, ops, _dependences(ops, loop), model)

    @classmethod
    def straight(cls, ops: Sequence[Operation], model: CostModel) -> LoopModel:
        """Ops of a block run once (e.g. a loop's remainder), as a body without carried edges."""
        return cls._build(None, list(ops), _dependences(ops, None), model)

    @classmethod
    def _build(
        cls,
        loop: Loop | None,
        ops: list[Operation],
        edges: Sequence[_Edge],
        model: CostModel,
    ) -> LoopModel:
        costs = [op_cost(op, model) for op in ops]
        cores = _loop_cores(ops, costs, model)
        same: list[set[int]] = [set() for _ in ops]
        previous: list[set[int]] = [set() for _ in ops]
        consumers: list[set[Use]] = [set() for _ in ops]
        next_consumers: list[set[Use]] = [set() for _ in ops]
        for edge in edges:
            (previous if edge.carried else same)[edge.target].add(edge.source)
            if edge.use is not None:
                uses = next_consumers if edge.carried else consumers
                uses[edge.source].add((edge.target, edge.use))
        carried_readers: list[set[int]] = [set() for _ in ops]
        for producer, op in enumerate(ops):
            if updated_in_place(op) is not None:
                continue  # it allocates no buffer
            # Its next instance overwrites its buffer: after the readers of
            # this iteration and, if they come first, the loop-carried ones.
            previous[producer] |= _buffer_readers(producer, consumers)
            carried_readers[producer] = {c for c, _ in next_consumers[producer]}
        placed = [
            _placements(op, cost, cores, model)
            for op, cost in zip(ops, costs, strict=True)
        ]
        register = [
            _on_scalar(cost) and not _touches_tiles(op)
            for op, cost in zip(ops, costs, strict=True)
        ]
        first = [0]
        for copies in placed:
            first.append(first[-1] + len(copies))
        steps: list[Step] = []
        for i, op in enumerate(ops):
            for core, cost in placed[i]:

                def waits(
                    sources: set[int], core: Core | None = core, cost: OpCost = cost
                ) -> tuple[Wait, ...]:
                    return tuple(
                        (s, not register[source] and source_cost.units != cost.units)
                        for source in sorted(sources)
                        for s, source_cost in _steps_on(first, placed, source, core)
                    )

                steps.append(
                    Step(
                        op,
                        cost,
                        _issuers(core, cost, cores),
                        bool(op.regions) or _on_scalar(cost),
                        register[i],
                        waits(same[i]),
                        waits(previous[i]),
                        waits(carried_readers[i]),
                        _tiles(op),
                        _pool(op),
                        _uses(first, consumers[i]),
                        _uses(first, next_consumers[i]),
                        _scratch(op),
                    )
                )
        steps_of = {
            op: tuple(range(first[i], first[i + 1])) for i, op in enumerate(ops)
        }
        return cls(loop, tuple(ops), tuple(steps), steps_of, cores, model)

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

    def simulate(
        self,
        order: Sequence[Operation] | None = None,
        *,
        min_iterations: int = MIN_ITERATIONS,
        max_iterations: int = MAX_ITERATIONS,
    ) -> Timeline:
        """The timeline of the body run back to back in `order`, and its steady state."""
        indices = self.step_order(order)
        run = _Run(self, indices)
        period = run.until_periodic(min_iterations, max_iterations)
        busy: dict[Unit, float] = {}
        for step in self.steps:
            for unit, time in step.cost.busy.items():
                busy[unit] = busy.get(unit, 0.0) + time
        starts, ends = tuple(run.starts), tuple(run.ends)
        time, repeat = (_average_period(starts, ends), 1) if period is None else period
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
            busy,
            _peak_bytes(self.steps, starts, ends),
            self.model.capacities,
            self.cores,
        )

    def total_time(
        self, iterations: int, order: Sequence[Operation] | None = None
    ) -> float:
        """
        The time of `iterations` iterations from an empty pipeline to the end
        of the last op (warm-up and drain included); at most
        `MAX_TOTAL_ITERATIONS` (`ValueError` beyond).
        """
        if not 0 <= iterations <= MAX_TOTAL_ITERATIONS:
            raise ValueError(
                f"cannot simulate more than {MAX_TOTAL_ITERATIONS} iterations"
            )
        run = _Run(self, self.step_order(order))
        for _ in range(iterations):
            run.iteration()
        return max((max(ends, default=0.0) for ends in run.ends), default=0.0)


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


def _on_scalar(cost: OpCost) -> bool:
    return all(unit.engine is Engine.SCALAR for unit in cost.units)


def _touches_tiles(op: Operation) -> bool:
    return any(isinstance(t, TileType) for t in (*op.operand_types, *op.result_types))


def _loop_cores(
    ops: Sequence[Operation], costs: Sequence[OpCost], model: CostModel
) -> tuple[Core, ...]:
    """Both cores if the body's ops need both, else () (one core)."""
    cores = {unit.core for cost in costs for unit in cost.units if unit.core}
    cores |= {
        core for op in ops if not op.regions and (core := issuing_core(op, model))
    }
    return tuple(c for c in Core if c in cores) if len(cores) > 1 else ()


def _placements(
    op: Operation, cost: OpCost, cores: tuple[Core, ...], model: CostModel
) -> list[tuple[Core | None, OpCost]]:
    """
    The copies of an op with the core that issues each: one per core for a
    core-less scalar op of a two-core loop (each core runs its own), else
    one; on one core, units lose their core.
    """
    if not cores:
        busy = {Unit(None, u.engine): t for u, t in cost.busy.items()}
        return [(None, OpCost(cost.duration, busy))]
    if set(cost.units) <= {_SCALAR_UNIT}:
        return [
            (core, OpCost(cost.duration, {Unit(core, Engine.SCALAR): cost.duration}))
            for core in cores
        ]
    if op.regions:
        return [(next(u.core for u in cost.units if u.core), cost)]
    return [(issuing_core(op, model), cost)]


def _issuers(
    core: Core | None, cost: OpCost, cores: tuple[Core, ...]
) -> tuple[Core | None, ...]:
    """The cores whose issue reaches a step: an op with units of both cores needs both."""
    if not cores:
        return (None,)
    spanned = tuple(c for c in cores if any(u.core is c for u in cost.units))
    return spanned if len(spanned) > 1 else (core,)


def _steps_on(
    first: Sequence[int],
    placed: Sequence[list[tuple[Core | None, OpCost]]],
    source: int,
    core: Core | None,
) -> list[tuple[int, OpCost]]:
    """The steps of op `source` a step on `core` waits for: its copy on that core, if it has copies."""
    copies = placed[source]
    mine = [k for k, (copy_core, _) in enumerate(copies) if copy_core is core]
    chosen = mine if len(copies) > 1 and mine else range(len(copies))
    return [(first[source] + k, copies[k][1]) for k in chosen]


def _uses(first: Sequence[int], uses: set[Use]) -> tuple[Use, ...]:
    return tuple(sorted((first[target], in_place) for target, in_place in uses))


def _buffer_readers(producer: int, consumers: Sequence[set[Use]]) -> set[int]:
    """
    The steps that read the buffer of `producer` in one iteration: its tile's
    consumers and, through each consumer that updates it in place, that
    consumer's readers.
    """
    readers: set[int] = set()
    pending = [producer]
    while pending:
        for consumer, in_place in consumers[pending.pop()]:
            if consumer not in readers:
                readers.add(consumer)
                if in_place:
                    pending.append(consumer)
    return readers


def _tiles(op: Operation) -> dict[MemorySpace, int]:
    tiles: dict[MemorySpace, int] = {}
    for result in op.results:
        if isinstance(result.type, TileType):
            space = result.type.memory_space
            tiles[space] = tiles.get(space, 0) + padded_bytes(result.type)
    return tiles


def _scratch(op: Operation) -> dict[MemorySpace, int]:
    """
    A row reduction without a scratch tile gets one from PyPTO, of its
    source's type (the target prints it right before the op).
    """
    if not isinstance(op, RowReductionOp) or op.scratch is not None:
        return {}
    source = op.source.type
    assert isinstance(source, TileType)
    return {source.memory_space: padded_bytes(source)}


def _pool(op: Operation) -> tuple[StagePair, ...]:
    attr = op.attributes.get(MEMBERSHIP_ATTR_NAME)
    return attr.pairs if isinstance(attr, MembershipAttr) else ()


@dataclass(frozen=True)
class _Edge:
    source: int
    target: int
    carried: bool
    """From an op of one iteration to an op of the next."""
    use: bool | None
    """None, or the target uses a tile of the source: updating it in place or not."""


def _dependences(ops: Sequence[Operation], loop: Loop | None) -> list[_Edge]:
    """
    The edges of the dependence graph of the ops: for a loop, of two
    consecutive iterations (the body cloned twice into a scratch block, the
    second clone with the induction variable plus the step and the first's
    yielded values for the iter_args; carried edges go from the first clone
    to the second); without a loop, of one copy.
    """
    scratch = Block()

    def add_copy(mapper: dict[SSAValue, SSAValue]) -> dict[Operation, int]:
        clones = [op.clone(value_mapper=mapper) for op in ops]
        scratch.add_ops(clones)
        return {clone: index for index, clone in enumerate(clones)}

    try:
        first: dict[SSAValue, SSAValue] = {}
        firsts = add_copy(first)
        seconds: dict[Operation, int] = {}
        if loop is not None:
            block = loop.body.block
            induction_var, *iter_args = block.args
            terminator = block.last_op
            yielded: Sequence[SSAValue] = (
                terminator.operands
                if terminator is not None and terminator.has_trait(IsTerminator)
                else ()
            )
            next_index = arith.AddiOp(induction_var, loop.step)
            scratch.add_op(next_index)
            second: dict[SSAValue, SSAValue] = {induction_var: next_index.result}
            second.update(
                zip(iter_args, (first.get(v, v) for v in yielded), strict=False)
            )
            seconds = add_copy(second)
        graph = DependenceGraph.build(scratch)
        edges: list[_Edge] = []
        for target, target_op in enumerate(graph.ops):
            carried = target_op in seconds
            target_index = seconds[target_op] if carried else firsts.get(target_op)
            if target_index is None:
                continue
            for source, reasons in graph.predecessor_indices(target).items():
                source_op = graph.ops[source]
                source_index = firsts.get(source_op)
                if source_index is None:
                    continue  # the second copy's own edges repeat the first's
                use = _tile_use(source_op, target_op, reasons)
                edges.append(_Edge(source_index, target_index, carried, use))
        return edges
    finally:  # the clones use values of the module: drop those uses
        for op in reversed(scratch.ops):
            scratch.erase_op(op, safe_erase=False)


def _tile_use(
    source: Operation, target: Operation, reasons: Sequence[Dependence]
) -> bool | None:
    """Whether `target` uses a tile `source` produces: in place (True) or not."""
    used = [
        reason.value
        for reason in reasons
        if reason.kind is DependenceKind.SSA
        and reason.value is not None
        and reason.value.owner is source
        and isinstance(reason.value.type, TileType)
    ]
    if not used:
        return None
    return updated_in_place(target) in used


# --------------------------------------------------------------------------- #
# The simulation
# --------------------------------------------------------------------------- #


Pair = tuple[Unit, Unit]
"""An ordered pair of units a flag goes between."""
Signals = dict[tuple[int, int], tuple[float, int]]
"""(flag time, number) of the flags set, by (source, target)."""


class _Run:
    """
    The state of a simulation: issue per core, units, queues, flags.

    A flag takes an event id of its pair when its source ends: the
    `events_per_pair`-th flag before it on that pair must have been waited
    for (its target started), else the source's unit stalls until it is.
    Only waits already simulated (earlier in issue order) are known: a
    flag whose earlier one waits later in the same iteration does not stall.
    """

    def __init__(self, loop: LoopModel, order: tuple[int, ...]):
        self.steps = loop.steps
        self.order = order
        model = loop.model
        self.depth = model.queue_depth
        self.sync = model.sync_latency
        self.budget = model.events_per_pair
        position = {step: n for n, step in enumerate(order)}
        # The loop-carried readers that come first in this order.
        self.waits = [
            (
                (
                    *step.same,
                    *(w for w in step.carried_readers if position[w[0]] < position[i]),
                ),
                step.previous,
            )
            for i, step in enumerate(self.steps)
        ]
        # Per step, the flags it sets: (target, next iteration, pair).
        self.flags: list[list[tuple[int, bool, Pair]]] = [[] for _ in self.steps]
        for target, (same, previous) in enumerate(self.waits):
            for waits, carried in ((same, False), (previous, True)):
                for source, flagged in waits:
                    if flagged:
                        pair = (
                            self.steps[source].units[0],
                            self.steps[target].units[0],
                        )
                        self.flags[source].append((target, carried, pair))
        units = {unit for step in self.steps for unit in step.units}
        self.free = dict.fromkeys(units, 0.0)
        self.waiting = {unit: deque[float](maxlen=self.depth) for unit in units}
        self.issue: dict[Core | None, float] = {}
        self.created: dict[Pair, int] = {}
        """Flags set so far per pair."""
        self.released: dict[Pair, dict[int, float]] = {}
        """When each recent flag of a pair was waited for, by its number."""
        self.signals_before: Signals = {}
        """The flags the previous iteration set for this one."""
        self.starts: list[tuple[float, ...]] = []
        self.ends: list[tuple[float, ...]] = []
        self.reached: list[tuple[float, ...]] = []
        self.issued: list[tuple[float, ...]] = []
        self.reasons: list[tuple[str, ...]] = []
        flagged = any(self.flags)
        self.history = max(1, self.depth, self.budget if flagged else 1)
        """Iterations the next one depends on (queues, event ids)."""
        groups: dict[tuple[Core | None, ...], list[int]] = {}
        for index, step in enumerate(self.steps):
            groups.setdefault(step.cores, []).append(index)
        self.groups = list(groups.values())
        """Steps by the cores that issue them: cores that do not wait for each other run at their own rate."""

    def iteration(self) -> None:
        """Simulate one more iteration."""
        count = len(self.steps)
        starts, ends = [0.0] * count, [0.0] * count
        reached, issued = [0.0] * count, [0.0] * count
        reasons = [""] * count
        before = (self.ends[-1], self.signals_before) if self.ends else None
        signals: tuple[Signals, Signals] = ({}, {})  # this iteration's, the next's
        for i in self.order:
            step = self.steps[i]
            reach, issue, start, reason = self._issue(step)
            start, reason, consumed = self._wait(
                i, start, reason, (ends, signals[0]), before
            )
            end = start + step.cost.duration
            for pair, number in consumed:
                released = self.released.setdefault(pair, {})
                released[number] = start
                released.pop(number - 2 * self.budget, None)
            flag_time = self._set_flags(i, end, signals)
            for core in step.cores:
                self.issue[core] = (
                    flag_time if step.blocking else (issue if self.depth else start)
                )
            for unit in step.units:
                self.free[unit] = flag_time
            if not step.blocking:
                self.waiting[step.units[0]].append(start)
            starts[i], ends[i], reasons[i] = start, end, reason
            reached[i], issued[i] = reach, issue
        self.signals_before = signals[1]
        self.starts.append(tuple(starts))
        self.ends.append(tuple(ends))
        self.reached.append(tuple(reached))
        self.issued.append(tuple(issued))
        self.reasons.append(tuple(reasons))

    def _issue(self, step: Step) -> tuple[float, float, float, str]:
        """
        When the issue reaches `step`, when it is issued (later if its queue
        is full), and when its unit lets it start.
        """
        issue = reach = max(self.issue.get(core, 0.0) for core in step.cores)
        if step.blocking:
            start = max([issue, *(self.free[u] for u in step.units)])
        else:
            unit = step.units[0]
            queue = self.waiting[unit]
            if self.depth and len(queue) == self.depth:
                issue = max(issue, queue[0])
            start = max(issue, self.free[unit])
        return reach, issue, start, Reason.ENGINE if start > issue else ""

    def _wait(
        self,
        index: int,
        start: float,
        reason: str,
        now: tuple[Sequence[float], Signals],
        before: tuple[Sequence[float], Signals] | None,
    ) -> tuple[float, str, list[tuple[Pair, int]]]:
        """
        The start of step `index` once what it depends on has ended (behind
        its flags), why, and the flags it consumes (pair, number).
        """
        step = self.steps[index]
        same, previous = self.waits[index]
        waits = [(wait, now) for wait in same]
        if before is not None:
            waits += [(wait, before) for wait in previous]
        consumed: list[tuple[Pair, int]] = []
        for (source, flagged), (ends, signals) in waits:
            ready = ends[source]
            if flagged and (signal := signals.get((source, index))) is not None:
                ready = signal[0] + self.sync
                consumed.append(
                    ((self.steps[source].units[0], step.units[0]), signal[1])
                )
            if ready > start:
                start = ready
                flag = " (flag)" if flagged else ""
                reason = f"{Reason.DEPENDENCE} {self.steps[source].op.name}{flag}"
        return start, reason, consumed

    def _set_flags(
        self, index: int, end: float, signals: tuple[Signals, Signals]
    ) -> float:
        """
        Set the flags of step `index` (ended at `end`), each with an event id
        of its pair; returns when the last is set (its units wait till then).
        """
        flag_time = end
        for target, carried, pair in self.flags[index]:
            number = self.created.get(pair, 0)
            self.created[pair] = number + 1
            earlier = self.released.get(pair, {}).get(number - self.budget)
            if earlier is not None and earlier > flag_time:
                flag_time = earlier  # waits for a free event id
            signals[carried][(index, target)] = (flag_time, number)
        return flag_time

    def until_periodic(
        self, min_iterations: int, max_iterations: int
    ) -> tuple[float, int] | None:
        """
        Iterations until the schedule is periodic, then (time per iteration,
        period), or None after `max_iterations`.
        """
        for iteration in range(max_iterations):
            self.iteration()
            if iteration + 1 >= min_iterations and (period := self._period()):
                return period
        return None

    def _period(self) -> tuple[float, int] | None:
        """
        The time per iteration once the last `history` iterations (all the
        next one depends on) repeat those `c` iterations earlier, each group
        of steps of the same cores shifted by a constant: then every later
        one does too (max-plus maps commute with shifts). Groups that do not
        wait for each other may run at different rates: the slowest sets
        the time.
        """
        starts, issued = self.starts, self.issued
        last = len(starts) - 1
        if not starts[last]:
            return 0.0, 1
        for c in range(1, MAX_PERIOD + 1):
            if last - c - self.history + 1 < 0:
                return None
            shifts = [starts[last][g[0]] - starts[last - c][g[0]] for g in self.groups]
            if all(
                _close(now[i] - then[i], shift)
                for group, shift in zip(self.groups, shifts, strict=True)
                for k in range(self.history)
                for times in (starts, issued)
                for now, then in ((times[last - k], times[last - k - c]),)
                for i in group
            ):
                return max(shifts) / c, c
        return None


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def _average_period(starts: Schedule, ends: Schedule) -> float:
    """
    The time per iteration over the second half of the simulation: from the
    first start of those iterations to the last end, so never less than any
    engine's busy time.
    """
    half = len(starts) // 2
    first = min((min(s) for s in starts[half:] if s), default=0.0)
    last = max((max(e) for e in ends if e), default=0.0)
    return (last - first) / (len(starts) - half)


def _peak_bytes(
    steps: Sequence[Step], starts: Schedule, ends: Schedule
) -> dict[MemorySpace, int]:
    """
    Bytes needed per memory space. A tile lives from its producer's start to
    its last consumer's end (to the start of a consumer that updates it in
    place, whose result takes its buffer over), a scratch buffer while its op
    runs; each pool (membership) has its own buffers, so the pools' peaks add
    up.
    """
    events: dict[tuple[tuple[StagePair, ...], MemorySpace], list[tuple[float, int]]]
    events = {}
    for iteration, (now_starts, now_ends) in enumerate(zip(starts, ends, strict=True)):
        times = [(now_starts, now_ends)]
        if iteration + 1 < len(starts):
            times.append((starts[iteration + 1], ends[iteration + 1]))
        for index, step in enumerate(steps):
            end = now_ends[index]
            for uses, (use_starts, use_ends) in zip(
                (step.consumers, step.next_consumers), times, strict=False
            ):
                for consumer, in_place in uses:
                    end = max(end, (use_starts if in_place else use_ends)[consumer])
            for space, size in step.tiles.items():
                events.setdefault((step.pool, space), []).extend(
                    ((now_starts[index], size), (end, -size))
                )
            for space, size in step.scratch.items():
                events.setdefault((step.pool, space), []).extend(
                    ((now_starts[index], size), (now_ends[index], -size))
                )
    peaks: dict[MemorySpace, int] = {}
    for (_, space), changes in events.items():
        changes.sort()  # a buffer freed at t can be reused at t
        live = peak = 0
        for _, change in changes:
            live += change
            peak = max(peak, live)
        peaks[space] = peaks.get(space, 0) + peak
    return peaks
