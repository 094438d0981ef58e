"""
The ops of a loop body as the timeline simulation's steps: the cores that issue
each, what it waits for, the buffers it fills and frees, and the dependence
edges between the ops of two consecutive iterations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.ir import Block, Operation, SSAValue
from xdsl.traits import IsTerminator

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.footprint import padded_bytes
from passes.analysis.graph import DependenceGraph
from passes.analysis.iterations import Loop, iterations
from passes.analysis.slots import slot_period
from passes.analysis.summaries import OpSummaries
from passes.schedule.engines import Core, CostModel, Engine, OpCost, Unit
from passes.schedule.op_costs import issuing_core, op_cost, updated_in_place
from pypto_dialect.allocation import BindOp, filled_binding
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr, StagePair
from pypto_dialect.tile import RowReductionOp, TPopOp, TPushOp
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import clone_op

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
class DependenceEdge:
    """A dependence between two ops of a loop body (indices into its ops)."""

    source: int
    target: int
    carried: bool
    """From an op of one iteration to an op of the next."""
    use: bool | None
    """None, or the target uses a tile of the source: updating it in place or not."""


def build_steps(
    loop: Loop | None,
    ops: Sequence[Operation],
    edges: Sequence[DependenceEdge],
    model: CostModel,
    cost_of: Callable[[Operation], OpCost] | None = None,
) -> tuple[tuple[Step, ...], dict[Operation, tuple[int, ...]], tuple[Core, ...]]:
    """
    The steps of a body's `ops` (its dependences `edges`, costs on `model`
    or by `cost_of`), the steps of each op, and the cores of a two-core
    loop (() for one core).
    """
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
    spanned = [_spanned(op, cost, model) for op, cost in zip(ops, costs, strict=True)]
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
                            _buffer_readers(i, consumers) if rotations[i] > 1 else set()
                        )
                    ),
                )
            )
    steps_of = {op: tuple(range(first[i], first[i + 1])) for i, op in enumerate(ops)}
    return tuple(steps), steps_of, cores


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
