"""
Which engine of which core runs each op, how much work it does, and how long
it takes on a cost table (`op_cost`): the rules of the engine model
(`engines.py`) for the ops of the `pypto` dialect and upstream `scf`/`arith`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from xdsl.dialects import scf
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import IsTerminator

from passes.analysis.footprint import (
    BLOCK_BYTES,
    FRACTAL_ROWS,
    element_bits,
    padded_bytes,
)
from passes.schedule.engines import (
    CHANNELS,
    Core,
    CostModel,
    Engine,
    OpCost,
    Unit,
)
from pypto_dialect.constants import constant_int
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import (
    CastOp,
    ChannelOp,
    ElementwiseBinaryOp,
    ExtractOp,
    FullOp,
    LoadOp,
    MatmulAccOp,
    MatmulOp,
    MoveOp,
    ReadOp,
    RowExpandOp,
    RowReductionOp,
    StoreOp,
    TileScalarOp,
    TPopOp,
    TPushOp,
    UnaryOp,
    WriteOp,
)
from pypto_dialect.types import MemorySpace, TileType

FRACTAL_MACS = 16 * 16 * 16
"""Multiply-accumulates of one cube fractal step (16 x 16 x 16 at 16 bits)."""


def _tile_types(types: Iterable[Attribute]) -> list[TileType]:
    return [t for t in types if isinstance(t, TileType)]


def _largest_tile(op: Operation) -> int:
    tiles = _tile_types((*op.operand_types, *op.result_types))
    return max((padded_bytes(tile) for tile in tiles), default=0)


def _result_tile(op: Operation) -> int:
    return sum(padded_bytes(tile) for tile in _tile_types(op.result_types))


def _element_bytes(op: Operation) -> int:
    return -(-element_bits(_tile_types(op.operand_types)[-1]) // 8)


def _fractal_macs(op: Operation) -> int:
    """16 x K0 x 16 fractal steps (K0: 32 bytes of elements) times 4096 MACs."""
    lhs, rhs = _tile_types(op.operand_types)[-2:]
    (m, k), (_, n) = lhs.get_shape(), rhs.get_shape()
    k_blocks = -(-k * element_bits(lhs) // (8 * BLOCK_BYTES))
    m_blocks, n_blocks = -(-m // FRACTAL_ROWS), -(-n // FRACTAL_ROWS)
    return m_blocks * k_blocks * n_blocks * FRACTAL_MACS


def _space_of(value_type: Attribute) -> MemorySpace | None:
    return value_type.memory_space if isinstance(value_type, TileType) else None


_COPY_ENGINES: Mapping[MemorySpace | None, Engine] = {
    MemorySpace.MAT: Engine.MTE1,
    MemorySpace.ACC: Engine.FIXPIPE,
}
"""Engines of `extract` / `move` by source space; VECTOR for the others."""

_CHANNEL_ENGINES = {
    ChannelDirection.AIC_TO_AIV: Engine.AIC_TO_AIV,
    ChannelDirection.AIV_TO_AIC: Engine.AIV_TO_AIC,
}


def _copy_engine(op: Operation) -> Engine:
    return _COPY_ENGINES.get(_space_of(op.operand_types[0]), Engine.VECTOR)


def _store_engine(op: Operation) -> Engine:
    acc = _space_of(op.operand_types[0]) is MemorySpace.ACC
    return Engine.FIXPIPE if acc else Engine.MTE3


def _channel_engine(op: Operation) -> Engine:
    assert isinstance(op, TPushOp | TPopOp)
    return _CHANNEL_ENGINES[op.channel.direction]


def _always(engine: Engine) -> Callable[[Operation], Engine]:
    return lambda _: engine


_VECTOR = _always(Engine.VECTOR)
_SCALAR = _always(Engine.SCALAR)

Rule = tuple[Callable[[Operation], Engine], Callable[[Operation], int]]
"""The engine of an op and its work (bytes, or MACs on CUBE)."""

_RULES: Mapping[type[Operation], Rule] = {
    LoadOp: (_always(Engine.MTE2), _largest_tile),
    StoreOp: (_store_engine, _largest_tile),
    ExtractOp: (_copy_engine, _result_tile),
    MoveOp: (_copy_engine, _result_tile),
    MatmulOp: (_always(Engine.CUBE), _fractal_macs),
    MatmulAccOp: (_always(Engine.CUBE), _fractal_macs),
    ReadOp: (_SCALAR, _element_bytes),
    WriteOp: (_SCALAR, _element_bytes),
    ElementwiseBinaryOp: (_VECTOR, _largest_tile),
    TileScalarOp: (_VECTOR, _largest_tile),
    UnaryOp: (_VECTOR, _largest_tile),
    CastOp: (_VECTOR, _largest_tile),
    RowReductionOp: (_VECTOR, _largest_tile),
    RowExpandOp: (_VECTOR, _largest_tile),
    FullOp: (_VECTOR, _largest_tile),
    TPushOp: (_channel_engine, _largest_tile),
    TPopOp: (_channel_engine, _largest_tile),
}
"""Op class (or a base class of it) to its engine and its work."""

_SCALAR_RULE: Rule = (_SCALAR, lambda _: 0)
"""Every other op: `arith`, loop control, calls, unknown ops."""


def _rule(op: Operation) -> Rule:
    """The rule of the op's class or of its closest base class in `_RULES`."""
    return next(
        (_RULES[cls] for cls in type(op).__mro__ if cls in _RULES), _SCALAR_RULE
    )


def engine_of(op: Operation) -> Engine:
    """The engine that runs `op` (an op without regions)."""
    return _rule(op)[0](op)


def work_of(op: Operation) -> int:
    """The work of `op` for its engine: padded bytes, or MACs on CUBE."""
    return _rule(op)[1](op)


def lanes_of(op: Operation, model: CostModel) -> int:
    """
    How many vector cores share `op`'s work: `vector_cores` for a push or pop
    that splits its tile between them (`split` other than 0), else 1.
    """
    return model.vector_cores if isinstance(op, ChannelOp) and op.split else 1


def touches_tiles(op: Operation) -> bool:
    """Whether `op` reads or produces a tile (a scalar op that does not is core-less)."""
    return bool(_tile_types((*op.operand_types, *op.result_types)))


def _issuing_core(op: TPushOp | TPopOp) -> Core:
    """A push runs on the sending core, a pop on the receiving one."""
    aic_to_aiv = op.channel.direction is ChannelDirection.AIC_TO_AIV
    return Core.AIC if aic_to_aiv == isinstance(op, TPushOp) else Core.AIV


def unit_of(op: Operation, model: CostModel) -> Unit:
    """
    The unit that runs `op` (an op without regions): its engine in the core
    that has it, or, for an engine of both cores, in the core of the op's
    tiles. Channels, and scalar ops without tiles, have no core; a push or a
    pop is issued by its core (`issuing_core`).
    """
    engine = engine_of(op)
    if engine in CHANNELS or (engine is Engine.SCALAR and not touches_tiles(op)):
        return Unit(None, engine)
    owners = [c for c, spec in model.cores.items() if engine in spec.engines]
    if len(owners) == 1:
        return Unit(owners[0], engine)
    spaces = (_space_of(t) for t in (*op.result_types, *op.operand_types))
    core = next(
        (c for s in spaces if s and (c := model.core_of_space(s)) in owners), None
    )
    return Unit(core, engine)


def issuing_core(op: Operation, model: CostModel) -> Core | None:
    """The core whose scalar unit issues `op` (an op without regions), if it has one."""
    if isinstance(op, TPushOp | TPopOp):
        return _issuing_core(op)
    return unit_of(op, model).core


def updated_in_place(op: Operation) -> SSAValue | None:
    """
    The operand whose buffer `op` writes its result into: the accumulator of
    `matmul_acc` (the cube accumulates in `acc`); None for the other ops.
    """
    return op.acc if isinstance(op, MatmulAccOp) else None


# --------------------------------------------------------------------------- #
# Costs
# --------------------------------------------------------------------------- #


def static_trip_count(loop: scf.ForOp | PipelineOp) -> int | None:
    """The trip count of a loop with constant bounds and a positive step."""
    lb, ub, step = (constant_int(v) for v in (loop.lb, loop.ub, loop.step))
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -((lb - ub) // step))


def _region_repeats(op: Operation) -> int | None:
    """How often a loop runs its body (1 when unknown), or None for other ops."""
    if isinstance(op, scf.ForOp | PipelineOp):
        trip = static_trip_count(op)
        return 1 if trip is None else trip
    return None


def op_cost(
    op: Operation,
    model: CostModel,
    known: dict[Operation, OpCost] | None = None,
    nested_cost: Callable[[Operation], OpCost] | None = None,
) -> OpCost:
    """
    The cost of `op`: its engine's latency plus work over bandwidth, on its
    unit; for an op with regions, its nested ops one after the other (a
    loop's body times its static trip count, else once; for a branch, its
    costliest region). `known` memoizes the costs of ops with regions on
    `model` (their nested ops included), so that a nest whose blocks are
    costed one after the other is costed once (an op's cost does not depend
    on the order of the ops in its blocks); `nested_cost`, if given, costs
    the nested ops (a caller's memoized `op_cost`).
    """
    if not op.regions:
        unit = unit_of(op, model)
        duration = model.engines[unit.engine].cost(work_of(op) / lanes_of(op, model))
        return OpCost(duration, {unit: duration})
    if known is not None and (cost := known.get(op)) is not None:
        return cost
    regions = [
        _total(
            op_cost(nested, model, known)
            if nested_cost is None
            else nested_cost(nested)
            for block in region.blocks
            for nested in block.ops
            if not nested.has_trait(IsTerminator)
        )
        for region in op.regions
    ]
    repeats = _region_repeats(op)
    if repeats is None:
        cost = max(regions, key=lambda cost: cost.duration)
    else:
        body = _total(regions)
        cost = OpCost(
            body.duration * repeats, {u: t * repeats for u, t in body.busy.items()}
        )
    if known is not None:
        known[op] = cost
    return cost


def _total(costs: Iterable[OpCost]) -> OpCost:
    """
    The cost of ops run one after the other, its units in a fixed order (so
    that it does not depend on the order of the ops, which the passes change).
    """
    duration = 0.0
    busy: dict[Unit, float] = {}
    for cost in costs:
        duration += cost.duration
        for unit, time in cost.busy.items():
            busy[unit] = busy.get(unit, 0.0) + time
    return OpCost(duration, {unit: busy[unit] for unit in sorted(busy, key=_unit_rank)})


_CORE_RANK = {None: 0} | {core: rank for rank, core in enumerate(Core, 1)}
_ENGINE_RANK = {engine: rank for rank, engine in enumerate(Engine)}


def _unit_rank(unit: Unit) -> tuple[int, int]:
    return _CORE_RANK[unit.core], _ENGINE_RANK[unit.engine]
