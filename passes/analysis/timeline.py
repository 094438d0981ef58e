"""
A timeline simulation of a loop body on the engine model (`engines.py`).

The body's ops are dispatched in program order, iteration after iteration,
to one in-order queue per engine. An op starts when its engine is free, when
the ops it depends on have ended (SSA values, memory and loop-carried values,
from the dependence graph of two consecutive iterations), and when the
buffers it writes are free: each tile an op produces has one buffer, which the
op's next instance overwrites, so it waits until the last consumer of the
previous tile in that buffer has ended (ping-pong is exactly more buffers).
Dispatch stalls while the op's queue already holds `queue_depth` waiting ops
(with depth 0 an op is dispatched when it starts).

Every start time is a max-plus expression of earlier ones, so the schedule
becomes periodic: the simulation runs until the last iterations repeat
earlier ones shifted by a constant, which gives the exact steady-state time
per iteration (or, if that does not happen within `max_iterations`, the
average over the second half, which still cannot beat the busiest engine).
Cost: linear in the ops simulated, plus a sort for the peak bytes.
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
    CostModel,
    Engine,
    OpCost,
    op_cost,
    tile_bytes,
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


Use = tuple[int, bool]
"""A step that uses a tile, and whether it updates it in place."""


@dataclass(frozen=True)
class Step:
    """One top-level op of the loop body, as the simulation sees it."""

    op: Operation
    cost: OpCost
    same: tuple[tuple[int, float], ...]
    """(step, delay): steps of the same iteration to wait for, plus a sync delay."""
    previous: tuple[tuple[int, float], ...]
    """(step, delay): steps of the previous iteration to wait for."""
    tiles: Mapping[MemorySpace, int]
    """Bytes of the tiles it produces, by memory space."""
    pool: tuple[StagePair, ...]
    """Its `pypto.pipeline_membership`: tiles of different pools never share memory."""
    consumers: tuple[Use, ...]
    """The steps of the same iteration that use its tiles."""
    next_consumers: tuple[Use, ...]
    """The steps of the next iteration that use its tiles (loop-carried)."""
    scratch: Mapping[MemorySpace, int]
    """Bytes of the buffers it needs only while it runs, by memory space."""


@dataclass(frozen=True)
class Interval:
    """One op of one simulated iteration."""

    iteration: int
    step: int
    start: float
    end: float


@dataclass(frozen=True)
class Timeline:
    """The simulated schedule of a loop body and its steady-state figures."""

    loop: Loop
    steps: tuple[Step, ...]
    starts: Schedule
    """Per simulated iteration, the start of each step."""
    ends: Schedule
    time_per_iteration: float
    converged: bool
    """Whether the exact periodic steady state was found."""
    busy: Mapping[Engine, float]
    """Busy time per iteration of each engine the body uses."""
    peak_bytes: Mapping[MemorySpace, int]
    """Bytes needed per memory space: the sum over pools of each pool's peak."""
    capacities: Mapping[MemorySpace, int]

    @property
    def bound(self) -> float:
        """The resource bound: the busiest engine's time per iteration."""
        return max(self.busy.values(), default=0.0)

    @property
    def bottleneck(self) -> Engine | None:
        return max(self.busy, key=self.busy.__getitem__, default=None)

    @property
    def efficiency(self) -> float:
        """bound / modelled time: 1 when the busiest engine never waits."""
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
        """The ops of the first `iterations` simulated iterations (all by default)."""
        for n, (starts, ends) in enumerate(
            zip(self.starts[:iterations], self.ends, strict=False)
        ):
            for i, (start, end) in enumerate(zip(starts, ends, strict=True)):
                yield Interval(n, i, start, end)


def loop_steps(loop: Loop, model: CostModel) -> tuple[Step, ...]:
    """The steps of the loop's body, with their costs and dependences."""
    ops = schedulable_ops(loop.body.block)
    costs = [op_cost(op, model) for op in ops]
    same: list[set[int]] = [set() for _ in ops]
    previous: list[set[int]] = [set() for _ in ops]
    consumers: list[set[Use]] = [set() for _ in ops]
    next_consumers: list[set[Use]] = [set() for _ in ops]
    for edge in _dependences(loop, ops):
        (previous if edge.carried else same)[edge.target].add(edge.source)
        if edge.use is not None:
            uses = next_consumers if edge.carried else consumers
            uses[edge.source].add((edge.target, edge.use))
    for producer, op in enumerate(ops):
        if updated_in_place(op) is not None:
            continue  # it allocates no buffer
        # Its next instance overwrites its buffer: after the readers of this
        # iteration, and the loop-carried readers that come before it.
        previous[producer] |= _buffer_readers(producer, consumers)
        same[producer] |= {c for c, _ in next_consumers[producer] if c < producer}

    def delays(index: int, sources: set[int]) -> tuple[tuple[int, float], ...]:
        return tuple(
            (source, _sync(costs[source], costs[index], model))
            for source in sorted(sources)
        )

    return tuple(
        Step(
            op,
            costs[i],
            delays(i, same[i]),
            delays(i, previous[i]),
            _tiles(op),
            _pool(op),
            tuple(sorted(consumers[i])),
            tuple(sorted(next_consumers[i])),
            _scratch(op),
        )
        for i, op in enumerate(ops)
    )


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


def _sync(source: OpCost, target: OpCost, model: CostModel) -> float:
    """The sync latency between two different non-scalar engines, else 0."""
    engines = {*source.engines, *target.engines} - {Engine.SCALAR}
    crosses = source.engines != target.engines and len(engines) > 1
    return model.sync_latency if crosses else 0.0


def _tiles(op: Operation) -> dict[MemorySpace, int]:
    tiles: dict[MemorySpace, int] = {}
    for result in op.results:
        if isinstance(result.type, TileType):
            space = result.type.memory_space
            tiles[space] = tiles.get(space, 0) + tile_bytes(result.type)
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
    return {source.memory_space: tile_bytes(source)}


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


def _dependences(loop: Loop, ops: Sequence[Operation]) -> list[_Edge]:
    """
    The edges of the dependence graph of two consecutive iterations: the body
    cloned twice into a scratch block, the second clone with the induction
    variable plus the step and the first's yielded values for the iter_args.
    Carried edges go from the first clone to the second.
    """
    block = loop.body.block
    induction_var, *iter_args = block.args
    terminator = block.last_op
    yielded: Sequence[SSAValue] = (
        terminator.operands
        if terminator is not None and terminator.has_trait(IsTerminator)
        else ()
    )
    scratch = Block()

    def add_copy(mapper: dict[SSAValue, SSAValue]) -> dict[Operation, int]:
        clones = [op.clone(value_mapper=mapper) for op in ops]
        scratch.add_ops(clones)
        return {clone: index for index, clone in enumerate(clones)}

    try:
        first: dict[SSAValue, SSAValue] = {}
        firsts = add_copy(first)
        next_index = arith.AddiOp(induction_var, loop.step)
        scratch.add_op(next_index)
        second: dict[SSAValue, SSAValue] = {induction_var: next_index.result}
        second.update(zip(iter_args, (first.get(v, v) for v in yielded), strict=False))
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


def simulate(
    loop: Loop,
    model: CostModel,
    *,
    min_iterations: int = MIN_ITERATIONS,
    max_iterations: int = MAX_ITERATIONS,
) -> Timeline:
    """The timeline of `loop`'s body run back to back, and its steady state."""
    steps = loop_steps(loop, model)
    starts, ends, period = _run(steps, model, min_iterations, max_iterations)
    busy: dict[Engine, float] = {}
    for step in steps:
        for engine, time in step.cost.busy.items():
            busy[engine] = busy.get(engine, 0.0) + time
    return Timeline(
        loop,
        steps,
        starts,
        ends,
        _average_period(starts, ends) if period is None else period,
        period is not None,
        busy,
        _peak_bytes(steps, starts, ends),
        model.capacities,
    )


def _run(
    steps: Sequence[Step], model: CostModel, min_iterations: int, max_iterations: int
) -> tuple[Schedule, Schedule, float | None]:
    """
    The start times of the steps, iteration after iteration, until the
    schedule is periodic (then also the time per iteration) or
    `max_iterations` have run.
    """
    depth = model.queue_depth
    engines = {engine for step in steps for engine in step.cost.engines}
    free = dict.fromkeys(engines, 0.0)
    waiting = {engine: deque[float](maxlen=depth) for engine in engines}
    starts: list[tuple[float, ...]] = []
    all_ends: list[tuple[float, ...]] = []
    dispatches: list[tuple[float, ...]] = []
    previous_ends: Sequence[float] = ()
    dispatched = 0.0
    for iteration in range(max_iterations):
        step_starts: list[float] = []
        step_dispatches: list[float] = []
        ends: list[float] = []
        for step in steps:
            ready = dispatched
            for engine in step.cost.engines:
                if depth and len(waiting[engine]) == depth:
                    ready = max(ready, waiting[engine][0])
            start = max([ready, *(free[engine] for engine in step.cost.engines)])
            for source, delay in step.same:
                start = max(start, ends[source] + delay)
            for source, delay in step.previous if previous_ends else ():
                start = max(start, previous_ends[source] + delay)
            end = start + step.cost.duration
            dispatched = ready if depth else start
            for engine in step.cost.engines:
                free[engine] = end
                waiting[engine].append(start)
            step_starts.append(start)
            step_dispatches.append(dispatched)
            ends.append(end)
        starts.append(tuple(step_starts))
        all_ends.append(tuple(ends))
        dispatches.append(tuple(step_dispatches))
        previous_ends = ends
        if (
            iteration + 1 >= min_iterations
            and (period := _period(starts, dispatches, max(1, depth))) is not None
        ):
            return tuple(starts), tuple(all_ends), period
    return tuple(starts), tuple(all_ends), None


def _period(
    starts: Sequence[tuple[float, ...]],
    dispatches: Sequence[tuple[float, ...]],
    history: int,
) -> float | None:
    """
    The time per iteration once the last `history` iterations (all the next
    one depends on) repeat those `c` iterations earlier shifted by a constant:
    then every later one does too (max-plus maps commute with shifts).
    """
    last = len(starts) - 1
    if not starts[last]:
        return 0.0
    for c in range(1, MAX_PERIOD + 1):
        if last - c - history + 1 < 0:
            return None
        shift = starts[last][0] - starts[last - c][0]
        if all(
            _close(now[i] - then[i], shift)
            for k in range(history)
            for times in (starts, dispatches)
            for now, then in ((times[last - k], times[last - k - c]),)
            for i in range(len(now))
        ):
            return shift / c
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
