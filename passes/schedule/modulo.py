"""
Iterative modulo scheduling (B. R. Rau, "Iterative Modulo Scheduling: An
Algorithm for Software Pipelining Loops", MICRO-27, 1994), for ops that hold
exclusive resources (engines) for a real-valued time.

Given a loop body as ops (each keeps some resources busy from its start) and
dependence edges (`CycleEdge`: the target starts at least `weight` after the
source, `transit` iterations later), a modulo schedule at an initiation
interval II gives every op a start time such that a new iteration can start
every II: each dependence holds with the target's iteration shifted by
`transit * II`, and no resource is held twice at the same time modulo II.

The scheduler takes the ops by decreasing height (the longest chain of
same-iteration dependences to the end of the body), starts each at the
earliest time its scheduled predecessors allow at which its resources are
free modulo II, and, where no such time exists within one II, forces it in
and unschedules the ops it collides with (on a resource, or a successor
whose dependence it breaks). It gives up on an II after a budget of
scheduling steps proportional to the ops, and tries a larger II.

Nothing here knows about IR: the caller maps ops to indices.
"""

from __future__ import annotations

import heapq
import math
from bisect import insort
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from passes.schedule.recurrence import CycleEdge

BUDGET_RATIO = 6
"""Scheduling steps per op before an II is given up (Rau suggests a few)."""
II_ATTEMPTS = 4
"""IIs tried: the lower bound, then each `II_GROWTH` larger than the last."""
II_GROWTH = 1.125


@dataclass(frozen=True)
class ModuloOp:
    """One op of the body: what it keeps busy (from its start) and for how long."""

    busy: Mapping[str, float]
    """Time each resource is held, from the op's start."""
    duration: float


@dataclass(frozen=True)
class ModuloSchedule:
    """A start time per op at which an iteration can start every `ii`."""

    ii: float
    starts: tuple[float, ...]


def resource_bound(ops: Sequence[ModuloOp]) -> float:
    """ResMII: the busiest resource's total time per iteration."""
    totals: dict[str, float] = {}
    for op in ops:
        for resource, time in op.busy.items():
            totals[resource] = totals.get(resource, 0.0) + time
    return max(totals.values(), default=0.0)


def modulo_schedule(
    ops: Sequence[ModuloOp], edges: Sequence[CycleEdge], min_ii: float
) -> ModuloSchedule | None:
    """
    A modulo schedule at the smallest of `II_ATTEMPTS` initiation intervals
    from `max(min_ii, resource bound)` up that the scheduler finds within its
    budget, or None. The ops are in program order: every edge of transit 0
    goes forward (`ValueError` otherwise).
    """
    if any(not e.transit and e.source >= e.target for e in edges):
        raise ValueError("an edge within an iteration goes backward")
    ii = max(min_ii, resource_bound(ops))
    if ii <= 0:  # nothing takes time: every op at 0
        return ModuloSchedule(0.0, tuple(0.0 for _ in ops))
    for _ in range(II_ATTEMPTS):
        starts = _Scheduler(ops, edges, ii).run()
        if starts is not None:
            return ModuloSchedule(ii, starts)
        ii *= II_GROWTH
    return None


class _Scheduler:
    """One attempt at one II (Rau's `IterativeSchedule`)."""

    def __init__(self, ops: Sequence[ModuloOp], edges: Sequence[CycleEdge], ii: float):
        self.ops = ops
        self.ii = ii
        self.preds: list[list[CycleEdge]] = [[] for _ in ops]
        self.succs: list[list[CycleEdge]] = [[] for _ in ops]
        for edge in edges:
            self.preds[edge.target].append(edge)
            self.succs[edge.source].append(edge)
        self.start: list[float | None] = [None] * len(ops)
        self.last: list[float | None] = [None] * len(ops)
        # Per resource, the held intervals as (start modulo II, length, op).
        self.held: dict[str, list[tuple[float, float, int]]] = {}

    def run(self) -> tuple[float, ...] | None:
        heights = _heights(len(self.ops), self.succs)
        pending = [(-height, index) for index, height in enumerate(heights)]
        heapq.heapify(pending)
        budget = BUDGET_RATIO * len(self.ops)
        while pending:
            if budget == 0:
                return None
            budget -= 1
            _, index = heapq.heappop(pending)
            earliest = self._earliest(index)
            time = self._free_slot(index, earliest)
            if time is None:
                previous = self.last[index]
                time = (
                    earliest
                    if previous is None or earliest > previous
                    else previous + 1.0
                )
                for evicted in self._colliding(index, time):
                    self._unschedule(evicted)
                    heapq.heappush(pending, (-heights[evicted], evicted))
            self._schedule(index, time)
            for edge in self.succs[index]:
                target = self.start[edge.target]
                if (
                    target is not None
                    and edge.target != index
                    and target < time + edge.weight - self.ii * edge.transit
                ):
                    self._unschedule(edge.target)
                    heapq.heappush(pending, (-heights[edge.target], edge.target))
        starts = tuple(s for s in self.start if s is not None)
        return starts if len(starts) == len(self.ops) else None

    def _earliest(self, index: int) -> float:
        """The earliest start the scheduled predecessors allow (0 at least)."""
        earliest = 0.0
        for edge in self.preds[index]:
            source = self.start[edge.source]
            if source is not None and edge.source != index:
                earliest = max(earliest, source + edge.weight - self.ii * edge.transit)
        return earliest

    def _free_slot(self, index: int, earliest: float) -> float | None:
        """The earliest time in `[earliest, earliest + II)` the op's resources are free."""
        busy = [(r, t) for r, t in self.ops[index].busy.items() if t > 0]
        time = earliest
        while time < earliest + self.ii:
            latest = time
            for resource, length in busy:
                free = _free_after(self.held.get(resource, []), time, length, self.ii)
                if free is None:
                    return None
                latest = max(latest, free)
            if latest == time:
                return time
            time = latest
        return None

    def _colliding(self, index: int, time: float) -> set[int]:
        """The scheduled ops that hold a resource of `index` when it would."""
        found: set[int] = set()
        for resource, length in self.ops[index].busy.items():
            for start, other_length, other in self.held.get(resource, []):
                if _overlap(time % self.ii, length, start, other_length, self.ii):
                    found.add(other)
        return found

    def _schedule(self, index: int, time: float) -> None:
        self.start[index] = self.last[index] = time
        for resource, length in self.ops[index].busy.items():
            if length > 0:
                insort(
                    self.held.setdefault(resource, []), (time % self.ii, length, index)
                )

    def _unschedule(self, index: int) -> None:
        time = self.start[index]
        if time is None:
            return
        self.start[index] = None
        for resource, length in self.ops[index].busy.items():
            if length > 0:
                self.held[resource].remove((time % self.ii, length, index))


def _heights(num_ops: int, succs: Sequence[Sequence[CycleEdge]]) -> list[float]:
    """
    The longest chain of same-iteration edges from each op to the end (those
    edges go forward: the ops are in program order).
    """
    heights = [0.0] * num_ops
    for index in reversed(range(num_ops)):
        for edge in succs[index]:
            if not edge.transit:
                heights[index] = max(heights[index], edge.weight + heights[edge.target])
    return heights


def _overlap(a: float, a_length: float, b: float, b_length: float, ii: float) -> bool:
    """Whether `[a, a + a_length)` and `[b, b + b_length)` overlap modulo `ii`."""
    if a_length <= 0 or b_length <= 0:
        return False
    return (b - a) % ii < a_length or (a - b) % ii < b_length


def _free_after(
    held: Sequence[tuple[float, float, int]], time: float, length: float, ii: float
) -> float | None:
    """
    The earliest start in `[time, time + ii)` of an interval of `length` that
    overlaps none of `held` (sorted by start modulo `ii`), or None.
    """
    offset = time % ii
    base = time - offset
    candidate = offset
    # The held intervals around the window, in order: their copies one II
    # before, at, and one II after.
    for shift in (-ii, 0.0, ii):
        for start, held_length, _ in held:
            begin = start + shift
            end = begin + held_length
            if end <= candidate:
                continue
            if begin >= candidate + length:
                return base + candidate if candidate < offset + ii else None
            candidate = end
            if candidate >= offset + ii or math.isclose(candidate, offset + ii):
                return None
    return base + candidate if candidate < offset + ii else None
