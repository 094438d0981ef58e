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

from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from operator import sub

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
from passes.analysis.iterations import Loop, iterations
from passes.analysis.slots import declared_bytes, slot_period
from passes.analysis.summaries import OpSummaries
from passes.cloning import clone_op
from pypto_dialect.allocation import BindOp, filled_binding
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr, StagePair
from pypto_dialect.tile import RowReductionOp, TPopOp, TPushOp
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.walks import walk_ops

Schedule = tuple[tuple[float, ...], ...]
"""Per simulated iteration, a time per step of the body."""

MAX_ITERATIONS = 256
"""Iterations simulated at most while looking for the periodic steady state."""
MIN_ITERATIONS = 8
"""Iterations simulated at least (a few to draw)."""
MAX_PERIOD = 8
"""The longest period (in iterations) the steady state is looked for with."""
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
    earlier: tuple[tuple[int, bool, int], ...] = ()
    """
    (step, flag, iterations back): the readers of the slot it rotates into,
    F iterations back (a rotation `i % F` of a declared allocation).
    """

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
    capacities: Mapping[MemorySpace, int]
    cores: tuple[Core, ...]
    """The cores of a two-core loop, () for a loop on one core."""

    @cached_property
    def peak_bytes(self) -> Mapping[MemorySpace, int]:
        """
        Bytes needed per memory space: the sum over pools of each pool's peak
        (computed when first asked: a sort of the simulated buffers' lives).
        """
        return _peak_bytes(self.steps, self.starts, self.ends)

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
class DependenceEdge:
    """A dependence between two ops of a loop body (indices into its ops)."""

    source: int
    target: int
    carried: bool
    """From an op of one iteration to an op of the next."""
    use: bool | None
    """None, or the target uses a tile of the source: updating it in place or not."""


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
        costs = [
            _free_if_folded(op, op_cost(op, model) if cost_of is None else cost_of(op))
            for op in ops
        ]
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
        rotations = [1] * len(ops)
        for producer, op in enumerate(ops):
            if updated_in_place(op) is not None or _is_folded(op):
                continue  # it allocates no buffer
            # Its next instance overwrites its buffer: after the readers of
            # this iteration and, if they come first, the loop-carried ones;
            # in a slot that it rotates through F slots, F iterations later.
            rotations[producer] = _rotation(op, loop)
            if rotations[producer] == 1:
                previous[producer] |= _buffer_readers(producer, consumers)
            carried_readers[producer] = {c for c, _ in next_consumers[producer]}
        spanned = [
            _spanned(op, cost, model) for op, cost in zip(ops, costs, strict=True)
        ]
        placed = [
            _placements(op, cost, cores, model, spans)
            for op, cost, spans in zip(ops, costs, spanned, strict=True)
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
                    if not sources:
                        return ()
                    return tuple(
                        (s, not register[source] and source_cost.units != cost.units)
                        for source in sorted(sources)
                        for s, source_cost in _steps_on(first, placed, source, core)
                    )

                steps.append(
                    Step(
                        op,
                        cost,
                        _issuers(core, spanned[i], cores),
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
                        tuple(
                            (s, flagged, rotations[i])
                            for s, flagged in waits(
                                _buffer_readers(i, consumers)
                                if rotations[i] > 1
                                else set()
                            )
                        ),
                    )
                )
        steps_of = {
            op: tuple(range(first[i], first[i + 1])) for i, op in enumerate(ops)
        }
        return cls(loop, tuple(ops), tuple(steps), steps_of, cores, model, tuple(edges))

    @cached_property
    def plan(self) -> _Plan:
        """What every simulation of the body reads, whatever the order (built once)."""
        return _Plan.of(self.steps)

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
        run = _Run(self, indices)
        period = run.until_periodic(min_iterations, max_iterations)
        starts, ends = tuple(run.starts), tuple(run.ends)
        time, repeat = (
            (_average_period(starts, ends), 1)
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
        (`_Run.last_end`); a schedule that is not periodic within
        `MAX_ITERATIONS` is simulated to the end, at most
        `MAX_SIMULATED_ITERATIONS` (`NotPeriodic` beyond).
        """
        if not 0 <= iterations <= MAX_TOTAL_ITERATIONS:
            raise ValueError(
                f"cannot simulate more than {MAX_TOTAL_ITERATIONS} iterations"
            )
        run = _Run(self, self.step_order(order))
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


def _on_scalar(cost: OpCost) -> bool:
    return all(unit.engine is Engine.SCALAR for unit in cost.units)


def _touches_tiles(op: Operation) -> bool:
    return any(isinstance(t, TileType) for t in (*op.operand_types, *op.result_types))


def _loop_cores(
    ops: Sequence[Operation], costs: Sequence[OpCost], model: CostModel
) -> tuple[Core, ...]:
    """Both cores if the body's ops need both, else () (one core)."""
    cores = {unit.core for cost in costs for unit in cost.units if unit.core}
    # Any other op is issued by the core of its unit, counted above.
    cores |= {
        core
        for op in ops
        if isinstance(op, TPushOp | TPopOp) and (core := issuing_core(op, model))
    }
    return tuple(c for c in Core if c in cores) if len(cores) > 1 else ()


def _placements(
    op: Operation,
    cost: OpCost,
    cores: tuple[Core, ...],
    model: CostModel,
    spanned: tuple[Core, ...],
) -> list[tuple[Core | None, OpCost]]:
    """
    The copies of an op with the core that issues each: one per core for a
    core-less scalar op of a two-core loop (each core runs its own), else
    one (an op with regions on the first core it spans, `_spanned`); on one
    core, units lose their core.
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
        return [(spanned[0] if spanned else cores[0], cost)]
    return [(issuing_core(op, model), cost)]


def _spanned(op: Operation, cost: OpCost, model: CostModel) -> tuple[Core, ...]:
    """
    The cores of an op's units, in `Core` order; for an op with regions whose
    units have no core (scalar ops and channels only), the cores that issue
    the pushes and pops nested in it.
    """
    found = {unit.core for unit in cost.units if unit.core}
    if not found and op.regions:
        found = {
            core
            for nested in walk_ops(op)
            if isinstance(nested, TPushOp | TPopOp)
            and (core := issuing_core(nested, model))
        }
    return tuple(c for c in Core if c in found)


def _issuers(
    core: Core | None, spanned: tuple[Core, ...], cores: tuple[Core, ...]
) -> tuple[Core | None, ...]:
    """The cores whose issue reaches a step: an op spanning both cores needs both."""
    if not cores:
        return (None,)
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
    """The padded bytes of its tiles; a tile in a declared allocation is the allocation's."""
    if type(op) is BindOp or filled_binding(op) is not None:
        return {}
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


# A binding of the tile an op computes (`filled_binding`) is where that op
# writes, as PyPTO's `multi_tile_get` (a scalar address) before the load: it
# costs nothing and waits for nothing; the tile's readers wait for its
# producer, and its buffer is a slot of the allocation (pinned: `_peak_bytes`).


def _folded_producer(op: Operation) -> Operation | None:
    """The op computing its tile into `op`, if `op` is a binding of it."""
    if type(op) is not BindOp:
        return None
    owner = op.tile.owner
    return (
        owner if isinstance(owner, Operation) and filled_binding(owner) is op else None
    )


def _is_folded(op: Operation) -> bool:
    """A binding of the tile its producer computes into it."""
    return _folded_producer(op) is not None


def _producer(op: Operation) -> Operation:
    """The op whose tile a folded binding holds; any other op itself."""
    return _folded_producer(op) or op


def _free_if_folded(op: Operation, cost: OpCost) -> OpCost:
    return OpCost(0.0, dict.fromkeys(cost.busy, 0.0)) if _is_folded(op) else cost


def _rotation(op: Operation, loop: Loop | None) -> int:
    """Every how many iterations `op` writes the same slot again (1: every one)."""
    binding = op if type(op) is BindOp else filled_binding(op)
    if binding is None or loop is None:
        return 1
    return slot_period(binding, loop.body.block.args[0], loop.step)


def dependence_edges(
    ops: Sequence[Operation],
    loop: Loop | None,
    summaries: OpSummaries | None = None,
) -> list[DependenceEdge]:
    """
    The edges of the dependence graph of the ops (SSA and memory; the reuse
    of a buffer is not one): for a loop, of two consecutive iterations
    (`iterations.py`; carried edges go from the first to the second), or,
    where the second iteration's accesses are not the first's shifted, of
    two copies of the body (`copied_edges`); without a loop, of one
    iteration. `summaries` may be shared with other analyses of the module.
    """
    found = iterations(ops, loop, summaries or OpSummaries())
    if found is None:
        return copied_edges(ops, loop)
    size = len(ops)
    index_of = {id(op): index for index, op in enumerate(ops)}.get
    # A folded binding's edges are its producer's (`_producer`); none go into it.
    folded = [_folded_producer(op) for op in ops]
    producer = [
        index if into is None else index_of(id(into))
        for index, into in enumerate(folded)
    ]
    edges: list[DependenceEdge] = []
    for node, sources in enumerate(found.predecessors):
        carried = node >= size
        target = node - size if carried else node
        if folded[target] is not None:
            continue
        target_op = ops[target]
        renamed = found.previous_value if carried else _same_value
        for source, reasons in sources.items():
            if source >= size:
                continue  # the next iteration's own edges repeat this one's
            source_index = producer[source]
            if source_index is not None:
                use = _tile_use(ops[source], target_op, reasons, renamed)
                edges.append(DependenceEdge(source_index, target, carried, use))
    return edges


def copied_edges(ops: Sequence[Operation], loop: Loop | None) -> list[DependenceEdge]:
    """
    `dependence_edges` from the dependence graph of copies of the ops: for
    a loop, of two consecutive iterations (the body cloned twice into a
    scratch block, the second clone with the induction variable plus the
    step and the first's yielded values for the iter_args; carried edges go
    from the first clone to the second); without a loop, of one copy.
    """
    scratch = Block()

    def add_copy(mapper: dict[SSAValue, SSAValue]) -> dict[Operation, int]:
        clones = [clone_op(op, mapper) for op in ops]
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
        # A terminator: the last copy, if unregistered, may not pass for one.
        scratch.add_op(scf.YieldOp())
        graph = DependenceGraph.build(scratch)
        edges: list[DependenceEdge] = []
        for target, target_op in enumerate(graph.ops):
            carried = target_op in seconds
            target_index = seconds[target_op] if carried else firsts.get(target_op)
            if target_index is None or _is_folded(target_op):
                continue
            for source, reasons in graph.predecessor_indices(target).items():
                source_op = graph.ops[source]
                source_index = firsts.get(_producer(source_op))
                if source_index is None:
                    continue  # the second copy's own edges repeat the first's
                use = _tile_use(source_op, target_op, reasons)
                edges.append(DependenceEdge(source_index, target_index, carried, use))
        return edges
    finally:  # the clones use values of the module: drop those uses
        for op in reversed(scratch.ops):
            scratch.erase_op(op, safe_erase=False)


def _same_value(value: SSAValue | None) -> SSAValue | None:
    return value


def _tile_use(
    source: Operation,
    target: Operation,
    reasons: Sequence[Dependence],
    renamed: Callable[[SSAValue | None], SSAValue | None] = _same_value,
) -> bool | None:
    """
    Whether `target` uses a tile `source` produces: in place (True) or not;
    `renamed` gives the value of `source`'s iteration that a value of
    `target`'s is.
    """
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
    return renamed(updated_in_place(target)) in used


# --------------------------------------------------------------------------- #
# The simulation
# --------------------------------------------------------------------------- #


Signals = dict[int, tuple[float, int]]
"""(flag time, number) of the flags set, by `source * steps + target`."""
NO_PAIR = -1
"""The pair of a wait no flag carries."""


@dataclass(frozen=True, slots=True)
class _StepInfo:
    """
    A step's figures, as the simulation reads them for each iteration; units
    and pairs of units by their numbers in the plan (`_Plan.units`).
    """

    units: tuple[int, ...]
    queue: int | None
    """The unit whose queue it waits in; None if it blocks the issue (`Step.blocking`)."""
    duration: float
    cores: tuple[Core | None, ...]
    same: tuple[tuple[int, int, str], ...]
    """(step, pair or `NO_PAIR`, reason): the steps of this iteration it waits for."""
    carried: tuple[tuple[int, int, str], ...]
    """The same for the steps of the previous iteration."""
    earlier: tuple[tuple[int, bool, int, str], ...]
    """(step, flag, iterations back, reason): the readers of its slot (`Step.earlier`)."""

    @staticmethod
    def of(
        index: int,
        steps: Sequence[Step],
        same: Sequence[Wait],
        previous: Sequence[Wait],
        number: Mapping[Unit, int],
    ) -> _StepInfo:
        step = steps[index]
        units = tuple(number[unit] for unit in step.units)

        def waits(sources: Sequence[Wait]) -> tuple[tuple[int, int, str], ...]:
            return tuple(
                (
                    source,
                    _pair(number, steps[source], step) if flagged else NO_PAIR,
                    f"{Reason.DEPENDENCE} {steps[source].op.name}"
                    + (" (flag)" if flagged else ""),
                )
                for source, flagged in sources
            )

        earlier = tuple(
            (
                source,
                flagged,
                back,
                f"{Reason.DEPENDENCE} {steps[source].op.name} (slot)",
            )
            for source, flagged, back in step.earlier
        )
        return _StepInfo(
            units,
            None if step.blocking else units[0],
            step.cost.duration,
            step.cores,
            waits(same),
            waits(previous),
            earlier,
        )


def _pair(number: Mapping[Unit, int], source: Step, target: Step) -> int:
    """
    The number of the pair a flag from `source` to `target` goes between;
    `NO_PAIR` if either holds no unit (an `scf.if` that only yields).
    """
    if not source.units or not target.units:
        return NO_PAIR
    return number[source.units[0]] * len(number) + number[target.units[0]]


Flag = tuple[int, int, int]
"""A flag a step sets: its key in `Signals`, 1 if of the next iteration (else 0), its pair."""


def _flags(
    steps: Sequence[Step],
    waits: Sequence[tuple[Sequence[Wait], Sequence[Wait]]],
    number: Mapping[Unit, int],
) -> list[list[Flag]]:
    """Per step, the flags it sets, from the waits (same, previous) of each."""
    flags: list[list[Flag]] = [[] for _ in steps]
    count = len(steps)
    for target, (same, previous) in enumerate(waits):
        for step_waits, carried in ((same, 0), (previous, 1)):
            for source, flagged in step_waits:
                if flagged:
                    pair = _pair(number, steps[source], steps[target])
                    flags[source].append((source * count + target, carried, pair))
    return flags


@dataclass(frozen=True)
class _Plan:
    """What every simulation of a body reads, whatever the order of its steps."""

    waits: list[tuple[Sequence[Wait], Sequence[Wait]]]
    """Per step, the steps it waits for: of this iteration, of the previous one."""
    carried_readers: Mapping[int, tuple[Wait, ...]]
    """The steps with loop-carried readers (waited for when they come first)."""
    units: Mapping[Unit, int]
    """The units the steps use, numbered."""
    info: list[_StepInfo]
    flags: list[list[Flag]]
    groups: list[list[int]]
    """Steps by the cores that issue them: cores that do not wait for each other run at their own rate."""
    busy: Mapping[Unit, float]
    """Busy time per iteration of each unit."""

    @staticmethod
    def of(steps: Sequence[Step]) -> _Plan:
        waits: list[tuple[Sequence[Wait], Sequence[Wait]]] = [
            (step.same, step.previous) for step in steps
        ]
        groups: dict[tuple[Core | None, ...], list[int]] = {}
        busy: dict[Unit, float] = {}
        issue: dict[Unit, float] = {}
        for index, step in enumerate(steps):
            groups.setdefault(step.cores, []).append(index)
            for unit, time in step.cost.busy.items():
                busy[unit] = busy.get(unit, 0.0) + time
            if step.blocking:
                for core in step.cores:
                    unit = Unit(core, Engine.SCALAR)
                    issue[unit] = issue.get(unit, 0.0) + step.cost.duration
        # A blocking step (a scalar op, an op with regions) holds its core's
        # issue, on the scalar unit, until it ends.
        for unit, time in issue.items():
            busy[unit] = max(busy.get(unit, 0.0), time)
        number: dict[Unit, int] = {}
        for step in steps:
            for unit in step.units:
                number.setdefault(unit, len(number))
        return _Plan(
            waits,
            {
                i: step.carried_readers
                for i, step in enumerate(steps)
                if step.carried_readers
            },
            number,
            [_StepInfo.of(i, steps, *pair, number) for i, pair in enumerate(waits)],
            _flags(steps, waits, number),
            list(groups.values()),
            busy,
        )


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
        plan = loop.plan
        self.info, self.flags = plan.info, plan.flags
        if plan.carried_readers:
            # The loop-carried readers that come first in this order wait
            # for them too: the waits of their producers, and so the flags.
            self._wait_for_carried_readers(plan, order)
        units = len(plan.units)
        self.free = [0.0] * units
        self.waiting = [deque[float](maxlen=self.depth) for _ in range(units)]
        self.issue: dict[Core | None, float] = {
            core: 0.0 for step in self.steps for core in step.cores
        }
        self.created = [0] * units * units
        """Flags set so far per pair."""
        self.released: list[dict[int, float]] = [{} for _ in range(units * units)]
        """When each recent flag of a pair was waited for, by its number."""
        self.signals_before: Signals = {}
        """The flags the previous iteration set for this one."""
        self.starts: list[tuple[float, ...]] = []
        self.ends: list[tuple[float, ...]] = []
        self.reached: list[tuple[float, ...]] = []
        self.issued: list[tuple[float, ...]] = []
        self.reasons: list[tuple[str, ...]] = []
        self.history = self._history()
        """Iterations the next one depends on (queues, event ids, slots)."""
        self.groups = plan.groups
        """Steps by the cores that issue them: cores that do not wait for each other run at their own rate."""

    def _wait_for_carried_readers(self, plan: _Plan, order: tuple[int, ...]) -> None:
        """The waits and flags of `plan` with the carried readers that come first."""
        position = {step: n for n, step in enumerate(order)}
        waits = list(plan.waits)
        changed: list[int] = []
        for producer, readers in plan.carried_readers.items():
            first = tuple(w for w in readers if position[w[0]] < position[producer])
            if first:
                same, previous = waits[producer]
                waits[producer] = ((*same, *first), previous)
                changed.append(producer)
        if not changed:
            return
        self.info = list(plan.info)
        for producer in changed:
            self.info[producer] = _StepInfo.of(
                producer, self.steps, *waits[producer], plan.units
            )
        self.flags = _flags(self.steps, waits, plan.units)

    def _history(self) -> int:
        """
        The iterations whose times determine the next one: the previous one
        (its ends, its flags), those that queued the last `queue_depth` ops
        of each unit (`ceil(depth / ops queued per iteration)`), and those
        whose flags the last `events_per_pair` of each pair are, with the
        iteration before them, where the waits that released those event
        ids may be (`ceil(budget / flags per iteration) + 1`), and the
        readers of the slots the body rotates through (F iterations back).
        """
        queued: dict[int, int] = {}
        for info in self.info:
            if info.queue is not None:
                queued[info.queue] = queued.get(info.queue, 0) + 1
        flags: dict[int, int] = {}
        for step_flags in self.flags:
            for _, _, pair in step_flags:
                flags[pair] = flags.get(pair, 0) + 1
        return max(
            [
                1,
                *(-(-self.depth // count) for count in queued.values()),
                *(-(-self.budget // count) + 1 for count in flags.values()),
                *(back for step in self.steps for _, _, back in step.earlier),
            ]
        )

    def iteration(self) -> None:  # noqa: PLR0915 (one frame: a call per step costs a tenth)
        """
        Simulate one more iteration: for each step in issue order, when the
        issue reaches it, when it is issued (later if its queue is full),
        when its unit lets it start, and when what it depends on has ended
        (behind its flags, whose event ids it then releases).
        """
        count = len(self.steps)
        starts, ends = [0.0] * count, [0.0] * count
        reached, issued = [0.0] * count, [0.0] * count
        reasons = [""] * count
        previous = self.ends[-1] if self.ends else None
        signals: tuple[Signals, Signals] = ({}, {})  # this iteration's, the next's
        now_signals, signals_before = signals[0], self.signals_before
        depth, sync, budget = self.depth, self.sync, self.budget
        free, waiting, issue_of = self.free, self.waiting, self.issue
        released = self.released
        infos, flags_of = self.info, self.flags
        for i in self.order:
            info = infos[i]
            cores = info.cores
            if len(cores) == 1:
                reach = issue_of[cores[0]]
            else:
                reach = max([issue_of[core] for core in cores])
            issue = reach
            queue = info.queue
            if queue is None:
                units = info.units
                start = (
                    max(issue, free[units[0]])
                    if len(units) == 1
                    else max([issue, *(free[u] for u in units)])
                )
            else:
                queued = waiting[queue]
                if depth and len(queued) == depth and queued[0] > issue:
                    issue = queued[0]
                start = max(issue, free[queue])
            reason = Reason.ENGINE if start > issue else ""
            consumed: list[tuple[int, int]] = []
            for source, pair, why in info.same:
                ready = ends[source]
                if (
                    pair != NO_PAIR
                    and (signal := now_signals.get(source * count + i)) is not None
                ):
                    ready = signal[0] + sync
                    consumed.append((pair, signal[1]))
                if ready > start:
                    start, reason = ready, why
            if previous is not None:
                for source, pair, why in info.carried:
                    ready = previous[source]
                    if (
                        pair != NO_PAIR
                        and (signal := signals_before.get(source * count + i))
                        is not None
                    ):
                        ready = signal[0] + sync
                        consumed.append((pair, signal[1]))
                    if ready > start:
                        start, reason = ready, why
            if info.earlier:
                start, reason = self._wait_for_slot(info, start, reason)
            # The event ids of the flags it waited for, released at its start.
            for pair, number in consumed:
                recent = released[pair]
                recent[number] = start
                recent.pop(number - 2 * budget, None)
            end = start + info.duration
            flag_time = self._set_flags(i, end, signals) if flags_of[i] else end
            next_issue = flag_time if queue is None else (issue if depth else start)
            for core in cores:
                issue_of[core] = next_issue
            for unit in info.units:
                free[unit] = flag_time
            if queue is not None:
                waiting[queue].append(start)
            starts[i], ends[i], reasons[i] = start, end, reason
            reached[i], issued[i] = reach, issue
        self.signals_before = signals[1]
        self.starts.append(tuple(starts))
        self.ends.append(tuple(ends))
        self.reached.append(tuple(reached))
        self.issued.append(tuple(issued))
        self.reasons.append(tuple(reasons))

    def _set_flags(
        self, index: int, end: float, signals: tuple[Signals, Signals]
    ) -> float:
        """
        Set the flags of step `index` (ended at `end`), each with an event id
        of its pair; returns when the last is set (its units wait till then).
        """
        created, released, budget = self.created, self.released, self.budget
        flag_time = end
        for key, carried, pair in self.flags[index]:
            number = created[pair]
            created[pair] = number + 1
            earlier = released[pair].get(number - budget)
            if earlier is not None and earlier > flag_time:
                flag_time = earlier  # waits for a free event id
            signals[carried][key] = (flag_time, number)
        return flag_time

    def _wait_for_slot(
        self, info: _StepInfo, start: float, reason: str
    ) -> tuple[float, str]:
        """The start once the readers of its slot, F iterations back, have ended."""
        for source, flagged, back, why in info.earlier:
            # A flag per slot, not counted against the event budget.
            if len(self.ends) >= back:
                ready = self.ends[-back][source] + (self.sync if flagged else 0.0)
                if ready > start:
                    start, reason = ready, why
        return start, reason

    def until_periodic(self, min_iterations: int, max_iterations: int) -> Period | None:
        """
        Iterations until the schedule is periodic, then its period, or None
        after `max_iterations`.
        """
        for iteration in range(max_iterations):
            self.iteration()
            if iteration + 1 >= min_iterations and (period := self._period()):
                return period
        return None

    def last_end(self, iterations: int, period: Period | None) -> float:
        """
        The end of the last op of the first `iterations` iterations, all
        simulated or, with the `period` the simulated ones end with, the
        rest extrapolated: iteration m + k c is iteration m of the last
        period with each group shifted k times by its shift over c
        iterations, so the latest end is a simulated one or one of the last
        period's shifted as often as fits below `iterations` (a + k s is
        largest at an end of the range of k). Exact: the shifts and sums are
        of `Fraction`s (the simulated floats exactly), rounded to a float
        once, so a count of 2^62 gives the nearest float to the periodic
        extrapolation (adding a cycle to 2^62 in floats would be lost).
        """
        ends = self.ends
        latest = max((max(times, default=0.0) for times in ends), default=0.0)
        if period is None or len(ends) == iterations:
            return latest
        exact = Fraction(latest)
        last, c = len(ends) - 1, period.iterations
        for group in self.groups:
            shift = Fraction(self.starts[last][group[0]]) - Fraction(
                self.starts[last - c][group[0]]
            )
            for m in range(last - c + 1, last + 1):
                end = Fraction(max(ends[m][i] for i in group))
                exact = max(exact, end + (iterations - 1 - m) // c * shift)
        return float(exact)

    def _period(self) -> Period | None:
        """
        The period once the last `history` iterations (all the next one
        depends on) repeat those `c` iterations earlier, each group of steps
        of the same cores shifted by a constant: then every later one does
        too (max-plus maps commute with shifts). Groups that do not wait for
        each other may run at different rates: the slowest sets the time.
        """
        starts, issued = self.starts, self.issued
        last = len(starts) - 1
        if not starts[last]:
            return Period(1, 0.0)
        for c in range(1, MAX_PERIOD + 1):
            if last - c - self.history + 1 < 0:
                return None
            shifts = [starts[last][g[0]] - starts[last - c][g[0]] for g in self.groups]
            if all(
                _shifted(times[last - k], times[last - k - c], group, shift)
                for k in range(self.history)
                for times in (starts, issued)
                for group, shift in zip(self.groups, shifts, strict=True)
            ):
                return Period(c, max(shifts) / c)
        return None


def _shifted(
    now: Sequence[float], then: Sequence[float], group: Sequence[int], shift: float
) -> bool:
    """Whether the times of `group` in `now` are those of `then` plus `shift` (up to rounding)."""
    if len(group) != len(now):
        now, then = [now[i] for i in group], [then[i] for i in group]
    differences = set(map(sub, now, then))
    return differences == {shift} or all(_close(d, shift) for d in differences)


@dataclass(frozen=True)
class Period:
    """A periodic schedule: every `iterations` iterations, each group of steps shifts by a constant."""

    iterations: int
    time_per_iteration: float
    """The slowest group's shift over `iterations`, per iteration."""


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
    up; a declared allocation the body binds to counts all its slots.
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
    # The allocations the body binds to are pinned: every slot, all the time.
    declarations = {
        step.op.declaration for step in steps if isinstance(step.op, BindOp)
    }
    for declaration in declarations:
        space = declaration.memory_space
        peaks[space] = peaks.get(space, 0) + declared_bytes(declaration)
    return peaks
