"""
The engine model of a tile program: its engines, cores and units, what an op
costs (`OpCost`), and the cost table (`CostModel`, read by `parse_costs`);
the rules that map each op to its unit and work are in `op_costs.py`.

Every op runs on one engine (`Engine`): SCALAR (`arith`, loop control,
`tile.read` / `tile.write`, any op the table does not know), MTE2
(`tile.load`), MTE1 (`extract` / `move` out of `mat`), VECTOR (tile math,
`full`, other copies), CUBE (`matmul`, `matmul_acc`), FIXPIPE (out of `acc`:
stores and copies of `acc` tiles), MTE3 (other stores), and one channel per
cross-core direction (`tpush` / `tpop`). The engine belongs to a core
(`Core`: AIC, the cube side, or AIV, the vector side, as the cost table's
`cores` says); an engine both cores have (MTE2, SCALAR) is the one of the
core that holds the op's tile (`spaces`). The pair is a `Unit`; a scalar op
that touches no tile has no core of its own (each core runs its copy).

An op costs its engine's fixed latency plus its work divided by the
engine's bandwidth: bytes moved or processed, padded as the memory lays
them out (`padded_bytes`: 32-byte rows in `vec`, 16 x 32-byte fractals in
`mat`, `left` and `right`, 16 x 16 elements in `acc`), and for CUBE
16 x 16 x 16 fractal multiplies counted as 4096 MACs each. A push or pop
whose `split` divides its tile between the table's `vector_cores` moves one
core's share, the cores' channels at once. An op with
regions costs its nested ops run one after the other (a loop's body times
its static trip count, the costliest region of a branch). `matmul_acc`
writes its result in place, into its accumulator's buffer.

The cost table is JSON (`default_costs.json` holds the defaults, each figure
with its source); `parse_costs` checks a user's table and raises
`CostTableError` with the path of the offending field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from typing import NamedTuple, TypeVar, cast

from xdsl.utils.str_enum import StrEnum

from pypto_dialect.source_text import UnreadableInput, decode_source, read_input
from pypto_dialect.types import MemorySpace


class Engine(StrEnum):
    """An in-order execution unit of a core (or a cross-core channel)."""

    SCALAR = "SCALAR"
    """The core's scalar unit: it issues the other engines' ops and runs its own."""
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


CHANNELS = frozenset({Engine.AIC_TO_AIV, Engine.AIV_TO_AIC})
"""The cross-core channels: shared by both cores, in neither."""


class Core(StrEnum):
    """A core with its own scalar unit and in-order issue (910B-class: AIC, AIV)."""

    AIC = "AIC"
    """The cube core."""
    AIV = "AIV"
    """The vector core."""


class Unit(NamedTuple):
    """An engine of a core; `core` is None for a channel or a core-less scalar op."""

    core: Core | None
    engine: Engine

    def label(self, with_core: bool) -> str:
        """`AIV MTE2`, or `MTE2` when the loop has one core."""
        return f"{self.core} {self.engine}" if with_core and self.core else self.engine


@dataclass(frozen=True)
class EngineCost:
    """An engine's figures: an op costs `latency + work / bandwidth` cycles."""

    latency: float
    bandwidth: float
    """Bytes per cycle (CUBE: multiply-accumulates per cycle)."""

    def cost(self, work: float) -> float:
        return self.latency + work / self.bandwidth


@dataclass(frozen=True)
class CoreSpec:
    """The engines a core has and the memory spaces its tiles live in."""

    engines: frozenset[Engine]
    spaces: frozenset[MemorySpace]


@dataclass(frozen=True)
class CostModel:
    """A cost table: engines, issue, synchronisation, cores and memory capacities."""

    engines: Mapping[Engine, EngineCost]
    capacities: Mapping[MemorySpace, int]
    """Bytes per memory space."""
    queue_depth: int
    """How many ops may wait in one engine's queue before the issue stalls."""
    sync_latency: float
    """Cycles from a flag set by one engine to the wait of another (set_flag / wait_flag)."""
    events_per_pair: int = 8
    """Flags (event ids) in flight at once per ordered pair of engines."""
    cores: Mapping[Core, CoreSpec] = field(
        default_factory=lambda: default_costs().cores
    )
    vector_cores: int = field(default_factory=lambda: default_costs().vector_cores)
    """
    Vector cores beside the cube core (1 or 2): a push or pop with a `split`
    moves a 1/`vector_cores` share of its tile, the lanes at once.
    """
    description: str = ""
    source: str = "default"
    """Where the table comes from: `default` or the file name."""
    sources: Mapping[str, str] = field(default_factory=dict[str, str])
    """The source of each figure, by its path (`engines.MTE2.latency`), if given."""

    def core_of_space(self, space: MemorySpace) -> Core | None:
        return next((c for c, spec in self.cores.items() if space in spec.spaces), None)


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
    """How long an op takes, and how long it keeps each unit busy."""

    duration: float
    busy: Mapping[Unit, float]

    @property
    def units(self) -> tuple[Unit, ...]:
        return tuple(self.busy)


# --------------------------------------------------------------------------- #
# The cost table
# --------------------------------------------------------------------------- #

_TOP_FIELDS = (
    "description",
    "queue_depth",
    "sync_latency",
    "events_per_pair",
    "vector_cores",
    "engines",
    "capacities",
    "cores",
)
_E = TypeVar("_E", bound=StrEnum)

_REQUIRED = ("queue_depth", "sync_latency", "engines", "capacities")
"""The other fields (added later) default to the bundled table's."""
_ENGINE_FIELDS = ("latency", "bandwidth")
_FIGURE_FIELDS = ("value", "source")
_CORE_FIELDS = ("engines", "spaces", "source")
MAX_FIGURE = 2**53
"""The largest figure a table may hold (exact as a float; NaN and infinity fail too)."""
MIN_BANDWIDTH = 2**-20
"""
The smallest non-zero bandwidth: with latencies at most `MAX_FIGURE`, an
op's time, and a whole loop's over `MAX_TOTAL_ITERATIONS` iterations, stay
finite floats.
"""
MAX_QUEUE_DEPTH = 64
"""
The deepest queue a table may give: the simulation keeps the last
`queue_depth` ops of each unit, so its time grows with it.
"""
MAX_EVENTS_PER_PAIR = 64
"""
The most event ids per pair a table may give (Atlas A2 has 8): the
simulation looks back over the iterations whose flags hold the last
`events_per_pair` ids of each pair, so its time grows with it.
"""


def default_costs_text() -> str:
    """The bundled cost table (`default_costs.json`), as JSON text."""
    return files("passes.schedule").joinpath("default_costs.json").read_text()


@cache
def default_costs() -> CostModel:
    """The bundled cost table."""
    return parse_costs(default_costs_text(), "default")


def load_costs(path: str) -> CostModel:
    """The cost table in the JSON file `path`; `CostTableError` if unusable."""
    try:
        text = decode_source(read_input(path))
    except UnreadableInput as error:
        raise CostTableError(f"cannot read the cost table: {error}") from None
    return parse_costs(text, path)


class _Reader:
    """Reads the figures of a parsed table, recording their sources."""

    def __init__(self) -> None:
        self.sources: dict[str, str] = {}

    def figure(self, value: object, where: str, *, integer: bool = False) -> float:
        """A number, or `{"value": number, "source": "..."}`."""
        if isinstance(value, dict):
            entry = cast(dict[str, object], value)
            fields = _object(entry, where, _FIGURE_FIELDS, required=("value",))
            source = fields.get("source", "")
            if not isinstance(source, str):
                raise CostTableError(f"{where}.source: must be a string")
            self.sources[where] = source
            value = fields["value"]
        return _number(value, where, integer=integer)

    def cores(self, value: object) -> dict[Core, CoreSpec]:
        entries = _object(value, "cores", tuple(Core), required=())
        if not entries:
            raise CostTableError("cores: must name at least one core")
        cores: dict[Core, CoreSpec] = {}
        for name, entry in entries.items():
            where = f"cores.{name}"
            fields = _object(entry, where, _CORE_FIELDS, required=_CORE_FIELDS[:2])
            source = fields.get("source", "")
            if not isinstance(source, str):
                raise CostTableError(f"{where}.source: must be a string")
            self.sources[where] = source
            engines = _names(fields["engines"], f"{where}.engines", Engine)
            if channels := sorted(engines & CHANNELS):
                raise CostTableError(
                    f"{where}.engines: {channels[0]} is a channel between the cores"
                )
            spaces = _names(fields["spaces"], f"{where}.spaces", MemorySpace)
            cores[Core(name)] = CoreSpec(engines, spaces)
        for engine in Engine:
            if engine not in CHANNELS and not any(
                engine in c.engines for c in cores.values()
            ):
                raise CostTableError(f"cores: no core has the engine {engine}")
        for space in MemorySpace:
            owners = [c for c, spec in cores.items() if space in spec.spaces]
            if len(owners) != 1:
                raise CostTableError(
                    f"cores: the space {space} must be in exactly one core"
                )
        return cores


def parse_costs(text: str, source: str) -> CostModel:
    """Check and read a JSON cost table; `CostTableError` names the bad field."""
    try:
        table = json.loads(text)
    except json.JSONDecodeError as error:
        raise CostTableError(
            f"invalid JSON: {error.msg}", f"{error.lineno}:{error.colno}"
        ) from None
    except ValueError:  # an integer of more digits than Python converts
        raise CostTableError("invalid JSON: a number with too many digits") from None
    except RecursionError:
        raise CostTableError(
            "invalid JSON: lists or objects nested too deeply"
        ) from None
    top = _object(table, "the cost table", _TOP_FIELDS, required=_REQUIRED)
    engines = _object(top["engines"], "engines", tuple(Engine), required=tuple(Engine))
    spaces = tuple(MemorySpace)
    capacities = _object(top["capacities"], "capacities", spaces, required=spaces)
    description = top.get("description", "")
    if not isinstance(description, str):
        raise CostTableError("description: must be a string")
    read = _Reader()
    return CostModel(
        engines={
            Engine(name): _engine_cost(read, entry, f"engines.{name}")
            for name, entry in engines.items()
        },
        capacities={
            MemorySpace(name): int(
                read.figure(value, f"capacities.{name}", integer=True)
            )
            for name, value in capacities.items()
        },
        queue_depth=_queue_depth(read, top["queue_depth"]),
        sync_latency=read.figure(top["sync_latency"], "sync_latency"),
        events_per_pair=_events(read, top),
        vector_cores=_vector_cores(read, top),
        cores=read.cores(top["cores"]) if "cores" in top else default_costs().cores,
        description=description,
        source=source,
        sources=read.sources,
    )


def _count(read: _Reader, value: object, where: str, most: int) -> int:
    """A whole figure of at most `most`."""
    count = int(read.figure(value, where, integer=True))
    if count > most:
        raise CostTableError(f"{where}: must be at most {most}, got {count}")
    return count


def _queue_depth(read: _Reader, value: object) -> int:
    return _count(read, value, "queue_depth", MAX_QUEUE_DEPTH)


def _events(read: _Reader, top: Mapping[str, object]) -> int:
    if "events_per_pair" not in top:
        return default_costs().events_per_pair
    events = _count(
        read, top["events_per_pair"], "events_per_pair", MAX_EVENTS_PER_PAIR
    )
    if events == 0:
        raise CostTableError("events_per_pair: must be positive, got 0")
    return events


def _vector_cores(read: _Reader, top: Mapping[str, object]) -> int:
    if "vector_cores" not in top:
        return default_costs().vector_cores
    count = read.figure(top["vector_cores"], "vector_cores", integer=True)
    if count not in (1, 2):
        raise CostTableError(f"vector_cores: must be 1 or 2, got {int(count)}")
    return int(count)


def _names(value: object, where: str, kind: type[_E]) -> frozenset[_E]:
    known = [str(member) for member in kind]
    if not isinstance(value, list):
        raise CostTableError(f"{where}: must be a JSON list of names")
    names = cast(list[object], value)
    for name in names:
        if name not in known:
            raise CostTableError(
                f"{where}: unknown name {json.dumps(name)} (known: {', '.join(known)})"
            )
    return frozenset(kind(cast(str, name)) for name in names)


def _object(
    value: object, where: str, known: tuple[str, ...], *, required: tuple[str, ...]
) -> dict[str, object]:
    if not isinstance(value, dict):
        raise CostTableError(f"{where}: must be a JSON object")
    entries = cast(dict[str, object], value)
    what = {"engines": "engine", "cores": "core"}.get(where, "field")
    for name in entries:
        if name not in known:
            raise CostTableError(
                f"{where}: unknown {what} '{name}' (known: {', '.join(known)})"
            )
    for name in required:
        if name not in entries:
            raise CostTableError(f"{where}: missing {what} '{name}'")
    return entries


def _engine_cost(read: _Reader, entry: object, where: str) -> EngineCost:
    fields = _object(entry, where, _ENGINE_FIELDS, required=_ENGINE_FIELDS)
    bandwidth = read.figure(fields["bandwidth"], f"{where}.bandwidth")
    if bandwidth < MIN_BANDWIDTH:
        raise CostTableError(
            f"{where}.bandwidth: must be at least 2^-20, got {_shown(bandwidth)}"
        )
    return EngineCost(read.figure(fields["latency"], f"{where}.latency"), bandwidth)


def _number(value: object, where: str, *, integer: bool = False) -> float:
    kind = "a non-negative integer" if integer else "a non-negative number"
    wrong = CostTableError(f"{where}: must be {kind}, got {_shown(value)}")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise wrong
    if not value >= 0:  # NaN too
        raise wrong
    if value > MAX_FIGURE:
        raise CostTableError(f"{where}: must be at most 2^53, got {_shown(value)}")
    if integer and value != int(value):
        raise wrong
    return float(value)


def _shown(value: object) -> str:
    """The JSON of a bad value, cut short (a message never prints unbounded text)."""
    text = json.dumps(value)
    return text if len(text) <= 40 else text[:37] + "..."
