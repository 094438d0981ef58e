"""
The engine model of a tile program: which engine of an AI core runs each op,
and how long it takes, from a cost table.

Every op runs on one engine (`Engine`): SCALAR (`arith`, loop control, any op
the table does not know), MTE2 (`tile.load`), MTE1 (`extract` / `move` out of
`mat`), VECTOR (tile math, `full`, `read`, `write`, other copies), CUBE
(`matmul`, `matmul_acc`), FIXPIPE (out of `acc`: stores and copies of `acc`
tiles), MTE3 (other stores), and one channel per cross-core direction
(`tpush` / `tpop`). An op costs its engine's fixed latency plus its work
divided by the engine's bandwidth: bytes moved or processed, MACs for CUBE.
An op with regions costs its nested ops run one after the other (a loop's
body times its static trip count, the costliest region of a branch).
`matmul_acc` writes its result in place, into its accumulator's buffer.

The cost table is JSON (`default_costs.json` holds illustrative defaults);
`parse_costs` checks a user's table and raises `CostTableError` with the
path of the offending field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib.resources import files
from typing import cast

from xdsl.dialects import scf
from xdsl.dialects.builtin import FixedBitwidthType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.traits import IsTerminator
from xdsl.utils.str_enum import StrEnum

from pypto_dialect.constants import constant_int
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import (
    CastOp,
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


class Engine(StrEnum):
    """An in-order execution unit of an AI core (or a cross-core channel)."""

    SCALAR = "SCALAR"
    MTE2 = "MTE2"
    """GM to `vec` / `mat`."""
    MTE1 = "MTE1"
    """`mat` to `left` / `right`."""
    VECTOR = "VECTOR"
    CUBE = "CUBE"
    FIXPIPE = "FIXPIPE"
    """Out of `acc`."""
    MTE3 = "MTE3"
    """`vec` to GM."""
    AIC_TO_AIV = "AIC_TO_AIV"
    AIV_TO_AIC = "AIV_TO_AIC"


@dataclass(frozen=True)
class EngineCost:
    """An engine's figures: an op costs `latency + work / bandwidth` cycles."""

    latency: float
    bandwidth: float
    """Bytes per cycle (CUBE: multiply-accumulates per cycle)."""

    def cost(self, work: float) -> float:
        return self.latency + work / self.bandwidth


@dataclass(frozen=True)
class CostModel:
    """A cost table: the engines' figures, the dispatcher and the memory capacities."""

    engines: Mapping[Engine, EngineCost]
    capacities: Mapping[MemorySpace, int]
    """Bytes per memory space."""
    queue_depth: int
    """How many ops may wait in one engine's queue before in-order dispatch stalls."""
    sync_latency: float
    """Cycles added to a dependence between two different non-scalar engines."""
    description: str = ""
    source: str = "default"
    """Where the table comes from: `default` or the file name."""


class CostTableError(Exception):
    """
    A cost table that cannot be used. The message starts with the path of the
    offending field (`engines.MTE2.latency: ...`); `position` is the
    `line:col` of a JSON syntax error.
    """

    def __init__(self, message: str, position: str = ""):
        super().__init__(message)
        self.message = message
        self.position = position

    def where(self, source: str) -> str:
        """`source`, with the `:line:col` of a syntax error."""
        return f"{source}:{self.position}" if self.position else source

    def located(self, source: str) -> str:
        """`source[:line:col]: error: message`."""
        return f"{self.where(source)}: error: {self.message}"


@dataclass(frozen=True)
class OpCost:
    """How long an op takes, and how long it keeps each engine busy."""

    duration: float
    busy: Mapping[Engine, float]

    @property
    def engines(self) -> tuple[Engine, ...]:
        return tuple(self.busy)


# --------------------------------------------------------------------------- #
# Ops to engines and work
# --------------------------------------------------------------------------- #


def tile_bytes(tile: TileType) -> int:
    """The bytes a tile occupies (sub-byte elements packed)."""
    element = tile.element_type
    assert isinstance(element, FixedBitwidthType), "verified tiles have sized elements"
    return -(-math.prod(tile.get_shape()) * element.bitwidth // 8)


def _tile_types(types: Iterable[Attribute]) -> list[TileType]:
    return [t for t in types if isinstance(t, TileType)]


def _largest_tile(op: Operation) -> int:
    tiles = _tile_types((*op.operand_types, *op.result_types))
    return max((tile_bytes(tile) for tile in tiles), default=0)


def _result_tile(op: Operation) -> int:
    return sum(tile_bytes(tile) for tile in _tile_types(op.result_types))


def _element_bytes(op: Operation) -> int:
    tile = _tile_types(op.operand_types)[-1]
    element = tile.element_type
    assert isinstance(element, FixedBitwidthType)
    return element.size


def _macs(op: Operation) -> int:
    lhs, rhs = _tile_types(op.operand_types)[-2:]
    (m, k), (_, n) = lhs.get_shape(), rhs.get_shape()
    return m * k * n


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

Rule = tuple[Callable[[Operation], Engine], Callable[[Operation], int]]
"""The engine of an op and its work (bytes, or MACs on CUBE)."""

_RULES: Mapping[type[Operation], Rule] = {
    LoadOp: (_always(Engine.MTE2), _largest_tile),
    StoreOp: (_store_engine, _largest_tile),
    ExtractOp: (_copy_engine, _result_tile),
    MoveOp: (_copy_engine, _result_tile),
    MatmulOp: (_always(Engine.CUBE), _macs),
    MatmulAccOp: (_always(Engine.CUBE), _macs),
    ReadOp: (_VECTOR, _element_bytes),
    WriteOp: (_VECTOR, _element_bytes),
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

_SCALAR_RULE: Rule = (_always(Engine.SCALAR), lambda _: 0)
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
    """The work of `op` for its engine: bytes, or MACs on CUBE."""
    return _rule(op)[1](op)


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


def op_cost(op: Operation, model: CostModel) -> OpCost:
    """
    The cost of `op`: its engine's latency plus work over bandwidth; for an op
    with regions, its nested ops one after the other (a loop's body times its
    static trip count, else once; for a branch, its costliest region).
    """
    if not op.regions:
        engine = engine_of(op)
        duration = model.engines[engine].cost(work_of(op))
        return OpCost(duration, {engine: duration})
    regions = [
        _total(
            op_cost(nested, model)
            for block in region.blocks
            for nested in block.ops
            if not nested.has_trait(IsTerminator)
        )
        for region in op.regions
    ]
    repeats = _region_repeats(op)
    if repeats is None:
        return max(regions, key=lambda cost: cost.duration)
    body = _total(regions)
    return OpCost(
        body.duration * repeats, {e: t * repeats for e, t in body.busy.items()}
    )


def _total(costs: Iterable[OpCost]) -> OpCost:
    """The cost of ops run one after the other."""
    duration = 0.0
    busy: dict[Engine, float] = {}
    for cost in costs:
        duration += cost.duration
        for engine, time in cost.busy.items():
            busy[engine] = busy.get(engine, 0.0) + time
    return OpCost(duration, busy)


# --------------------------------------------------------------------------- #
# The cost table
# --------------------------------------------------------------------------- #

_TOP_FIELDS = ("description", "queue_depth", "sync_latency", "engines", "capacities")
_ENGINE_FIELDS = ("latency", "bandwidth")


def default_costs_text() -> str:
    """The bundled illustrative cost table (`default_costs.json`), as JSON text."""
    return files("passes.analysis").joinpath("default_costs.json").read_text()


def default_costs() -> CostModel:
    """The bundled illustrative cost table."""
    return parse_costs(default_costs_text(), "default")


def load_costs(path: str) -> CostModel:
    """The cost table in the JSON file `path`; `CostTableError` if unusable."""
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise CostTableError(f"cannot read the cost table: {error.strerror}") from None
    except UnicodeDecodeError:
        raise CostTableError("cannot read the cost table: not UTF-8 text") from None
    return parse_costs(text, path)


def parse_costs(text: str, source: str) -> CostModel:
    """Check and read a JSON cost table; `CostTableError` names the bad field."""
    try:
        table = json.loads(text)
    except json.JSONDecodeError as error:
        raise CostTableError(
            f"invalid JSON: {error.msg}", f"{error.lineno}:{error.colno}"
        ) from None
    top = _object(table, "the cost table", _TOP_FIELDS, required=_TOP_FIELDS[1:])
    engines = _object(top["engines"], "engines", tuple(Engine), required=tuple(Engine))
    spaces = tuple(MemorySpace)
    capacities = _object(top["capacities"], "capacities", spaces, required=spaces)
    description = top.get("description", "")
    if not isinstance(description, str):
        raise CostTableError("description: must be a string")
    return CostModel(
        engines={
            Engine(name): _engine_cost(entry, f"engines.{name}")
            for name, entry in engines.items()
        },
        capacities={
            MemorySpace(name): int(_number(value, f"capacities.{name}", integer=True))
            for name, value in capacities.items()
        },
        queue_depth=int(_number(top["queue_depth"], "queue_depth", integer=True)),
        sync_latency=_number(top["sync_latency"], "sync_latency"),
        description=description,
        source=source,
    )


def _object(
    value: object, where: str, known: tuple[str, ...], *, required: tuple[str, ...]
) -> dict[str, object]:
    if not isinstance(value, dict):
        raise CostTableError(f"{where}: must be a JSON object")
    entries = cast(dict[str, object], value)
    what = "engine" if where == "engines" else "field"
    for name in entries:
        if name not in known:
            raise CostTableError(
                f"{where}: unknown {what} '{name}' (known: {', '.join(known)})"
            )
    for name in required:
        if name not in entries:
            raise CostTableError(f"{where}: missing {what} '{name}'")
    return entries


def _engine_cost(entry: object, where: str) -> EngineCost:
    fields = _object(entry, where, _ENGINE_FIELDS, required=_ENGINE_FIELDS)
    bandwidth = _number(fields["bandwidth"], f"{where}.bandwidth")
    if bandwidth == 0:
        raise CostTableError(f"{where}.bandwidth: must be positive, got 0")
    return EngineCost(_number(fields["latency"], f"{where}.latency"), bandwidth)


def _number(value: object, where: str, *, integer: bool = False) -> float:
    kind = "a non-negative integer" if integer else "a non-negative number"
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value < 0
        or (integer and value != int(value))
    ):
        raise CostTableError(f"{where}: must be {kind}, got {json.dumps(value)}")
    return float(value)
