"""
List scheduling of a block on its dependence graph, whatever the priorities:
a topological order that always takes the ready op of highest priority, and
the in-place move of the block's ops into an order with the fewest moves.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence
from itertools import groupby
from typing import Any, Protocol, TypeVar

from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint
from xdsl.utils.exceptions import PassFailedException

from passes.analysis import DependenceGraph


class _Comparable(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


KeyT = TypeVar("KeyT", bound=_Comparable)
"""A priority: the smaller, the sooner."""


def priority_order(graph: DependenceGraph, keys: Sequence[KeyT]) -> list[int]:
    """
    A topological order of `graph` (Kahn's algorithm) that always emits the
    ready op with the smallest key, `keys[i]` being that of `graph.ops[i]`;
    among equal keys, the earlier op.
    """
    waiting = [len(graph.predecessor_indices(i)) for i in range(len(keys))]
    ready = [(key, i) for i, key in enumerate(keys) if not waiting[i]]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, emitted = heapq.heappop(ready)
        order.append(emitted)
        for successor in graph.successor_indices(emitted):
            waiting[successor] -= 1
            if not waiting[successor]:
                heapq.heappush(ready, (keys[successor], successor))
    if len(order) != len(keys):
        raise PassFailedException(
            f"internal error: dependence cycle among {len(keys) - len(order)} ops of "
            "a block; please report this bug"
        )
    return order


def _longest_increasing(values: Sequence[int]) -> set[int]:
    """The values of a longest increasing subsequence of `values` (distinct ints)."""
    tails: list[int] = []  # tails[k]: the smallest last value of a run of k + 1
    ends: list[int] = []  # ends[k]: where in `values` that run ends
    previous: list[int | None] = []
    for position, value in enumerate(values):
        length = bisect_left(tails, value)
        previous.append(ends[length - 1] if length else None)
        if length == len(tails):
            tails.append(value)
            ends.append(position)
        else:
            tails[length], ends[length] = value, position
    kept: set[int] = set()
    position = ends[-1] if ends else None
    while position is not None:
        kept.add(values[position])
        position = previous[position]
    return kept


def move_into_order(
    block: Block,
    ops: Sequence[Operation],
    order: Sequence[int],
    rewriter: PatternRewriter,
) -> list[int]:
    """
    Move the ops of `block` into `order`, keeping a longest run already in
    order in place (fewest moves; consecutive moved ops move together);
    return the indices of the moved ops.
    """
    kept = _longest_increasing(order)
    moved: list[int] = []
    previous: Operation | None = None
    for is_kept, group in groupby(order, key=kept.__contains__):
        indices = list(group)
        if not is_kept:
            run = [ops[index] for index in indices]
            for op in run:
                op.detach()
            where = (
                InsertPoint.after(previous) if previous else InsertPoint.at_start(block)
            )
            rewriter.insert(run, where)
            moved.extend(indices)
        previous = ops[indices[-1]]
    return moved
