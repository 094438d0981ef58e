"""
The `engine` order of `canonicalize-io-order`: tiers by the engine an op runs
on, with loads hoisted a bounded distance ahead of their stage.

Only ops on the load engine (MTE2: `tile.load`) move ahead. Every other op
that is not pure scalar arithmetic stays with its stage: `read` / `write`
with the tile they access, `extract` / `move` out of `mat` (MTE1) with the
compute they feed, so an engine's queue is never reordered against the
arrival of its data. The load of stage `s + D` goes just before the compute
of stage `s`; the distance `D` (`prefetch_distance`) is the smallest of the
stages, the load latency over the initiation interval, the event budget and
the buffer budget. The key of an op is

    (0,)                                     scalar arithmetic
    (1, stage - D, 0)                        a load
    (1, stage, 1)                            compute (and a store without overlap)
    (1, stage, 2)                            a store

with `stage` the op's effective membership, innermost stage first (chunked
as in the `category` order under `double_buffer_acc`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from xdsl.ir import Operation

from passes.analysis.footprint import padded_bytes
from passes.orders.category import (
    Category,
    ScheduleKey,
    classify,
    effective_membership,
)
from passes.schedule.engines import CostModel, Engine, OpCost, Unit
from passes.schedule.op_costs import engine_of
from pypto_dialect.attributes import StagePair
from pypto_dialect.pipeline import PipelinePolicy
from pypto_dialect.types import MemorySpace, TileType

_SCALAR = ScheduleKey(0, (), 0, ())
_LOAD, _COMPUTE, _STORE = 0, 1, 2


def is_load(op: Operation) -> bool:
    """An op on the load engine (MTE2): the only ops the `engine` order hoists."""
    return not op.regions and engine_of(op) is Engine.MTE2


def engine_chains(costs: Sequence[OpCost]) -> dict[str, list[int]]:
    """
    Per unit but the scalar units (by name: `MTE2`, or `AIV MTE2` when the
    ops use both cores), its ops among those whose `costs` are given
    (indices, in program order; an op with regions on each unit its nested
    ops use). The `engine` order keeps each in order: a unit's queue runs in
    order, so an op a dependence holds back is not overtaken by the ops
    after it on its unit; the keys only choose how the queues interleave.
    """
    chains: dict[Unit, list[int]] = {}
    for index, cost in enumerate(costs):
        for unit in cost.busy:
            if unit.engine is not Engine.SCALAR:
                chains.setdefault(unit, []).append(index)
    two_cores = len({unit.core for unit in chains if unit.core}) > 1
    return {unit.label(two_cores): chain for unit, chain in chains.items()}


def copies(ops: Sequence[Operation]) -> int:
    """The distinct innermost stages of the ops' memberships (1 at least)."""
    return max(
        1, len({stage[0][1] for op in ops if (stage := effective_membership(op))})
    )


def engine_keys(
    ops: Sequence[Operation], policy: PipelinePolicy, distance: int
) -> list[ScheduleKey]:
    """The key of each of `ops` in the `engine` order with prefetch `distance`."""
    keys: list[ScheduleKey] = []
    for op in ops:
        category = classify(op, overlap_stores=policy.overlap_stores)
        if category is Category.SCALAR_COMPUTE:
            keys.append(_SCALAR)
            continue
        stage = effective_membership(op)
        if is_load(op):
            sub = _LOAD
            if stage:
                (group, innermost), *outer = stage
                stage = ((group, max(0, innermost - distance)), *outer)
        else:
            sub = _STORE if category is Category.STORE else _COMPUTE
        keys.append(_key(stage, sub, policy.double_buffer_acc))
    return keys


def _key(
    stage: tuple[StagePair, ...], sub: int, double_buffer_acc: bool
) -> ScheduleKey:
    if double_buffer_acc:
        innermost = stage[0][1] if stage else -1
        return ScheduleKey(1, (innermost // 2,), sub, (innermost,))
    return ScheduleKey(1, tuple(n for pair in stage for n in pair), sub, ())


def prefetch_distance(
    ops: Sequence[Operation], costs: Sequence[OpCost], model: CostModel
) -> int:
    """
    How many stages ahead the `engine` order issues loads (`costs` those of
    `ops`): at most the stages less one, the longest load's duration over the
    initiation interval of one stage (more hides no more latency), the event
    budget less one (a load of stage `s + D` waited for by the compute of
    stage `s + D` holds an event id of its pair of engines from its end to
    that wait: `events_per_pair` of the table are in flight at most), and
    the stages whose loads fit in their memory space at once.
    """
    stages = copies(ops)
    if stages == 1:
        return 0
    busy: dict[Unit, float] = {}
    longest_load = 0.0
    loaded: dict[tuple[int, MemorySpace], int] = {}
    for op, cost in zip(ops, costs, strict=True):
        for unit, time in cost.busy.items():
            busy[unit] = busy.get(unit, 0.0) + time
        if not is_load(op):
            continue
        longest_load = max(longest_load, cost.duration)
        stage = effective_membership(op)
        for result in op.results:
            if isinstance(tile := result.type, TileType):
                key = (stage[0][1] if stage else 0, tile.memory_space)
                loaded[key] = loaded.get(key, 0) + padded_bytes(tile)
    interval = max(busy.values(), default=0.0) / stages
    ratio = longest_load / interval if interval else math.inf
    latency = math.ceil(ratio) if ratio < stages else stages - 1  # inf, nan too
    per_stage: dict[MemorySpace, int] = {}
    for (_, space), size in loaded.items():
        per_stage[space] = max(per_stage.get(space, 0), size)
    buffers = min(
        (
            model.capacities[space] // size - 1
            for space, size in per_stage.items()
            if size
        ),
        default=stages,
    )
    events = model.events_per_pair - 1
    return max(0, min(stages - 1, latency, events, buffers))
