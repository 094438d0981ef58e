"""
List scheduling of a block on its dependence graph, whatever the priorities:
a topological order that always takes the ready op of highest priority (or,
where it keeps every dependence, simply the order of the priorities), and
the in-place reorder of the block's ops into it (reported and notified, when
anyone listens, as the fewest moves: the ops off a longest run already in
order).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Collection, Sequence
from itertools import pairwise
from typing import Any, Protocol, TypeVar, cast

from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.utils.exceptions import PassFailedException

from passes.analysis import DependenceGraph
from pypto_dialect.xdsl_internals import relink


class _Comparable(Protocol):
    def __lt__(self, other: Any, /) -> bool: ...


KeyT = TypeVar("KeyT", bound=_Comparable)
"""A priority: the smaller, the sooner."""


def priority_order(
    graph: DependenceGraph,
    keys: Sequence[KeyT],
    chains: Sequence[Sequence[int]] = (),
) -> list[int]:
    """
    A topological order of `graph` (Kahn's algorithm) that always emits the
    ready op with the smallest key, `keys[i]` being that of `graph.ops[i]`;
    among equal keys, the earlier op. The ops of each of `chains` (indices)
    also keep the chain's order, as if each depended on the one before.
    """
    waiting = graph.in_degrees()
    successors = graph.all_successor_indices()
    after: dict[int, list[int]] = {}
    for chain in chains:
        for earlier, later in pairwise(chain):
            after.setdefault(earlier, []).append(later)
            waiting[later] += 1
    ready = [(key, i) for i, key in enumerate(keys) if not waiting[i]]
    heapq.heapify(ready)
    order: list[int] = []
    while ready:
        _, emitted = heapq.heappop(ready)
        order.append(emitted)
        released = successors[emitted]
        if after and emitted in after:
            released = [*released, *after[emitted]]
        for successor in released:
            waiting[successor] -= 1
            if not waiting[successor]:
                heapq.heappush(ready, (keys[successor], successor))
    if len(order) != len(keys):
        raise PassFailedException(
            f"internal error: dependence cycle among {len(keys) - len(order)} ops of "
            "a block; please report this bug"
        )
    return order


def follows_chains(order: Sequence[int], chains: Collection[Sequence[int]]) -> bool:
    """Whether the ops of each of `chains` come in `order` in the chain's order."""
    if not chains:
        return True
    position = {index: n for n, index in enumerate(order)}
    return all(
        position[earlier] < position[later]
        for chain in chains
        for earlier, later in pairwise(chain)
    )


def keeps_edges(graph: DependenceGraph, order: Sequence[int]) -> bool:
    """Whether `order` (indices of `graph.ops`) puts every op after its predecessors."""
    position = {index: n for n, index in enumerate(order)}
    return all(
        position[successor] > position[index]
        for index, successors in enumerate(graph.all_successor_indices())
        for successor in successors
    )


def sorted_order(keys: Sequence[KeyT]) -> list[int]:
    """
    The indices of `keys` (hashable) sorted by key, the earlier among equal keys: what
    `priority_order` gives whenever this order is a topological order of the
    graph (each op it takes next is then both ready and the smallest left).
    """
    # A block has few distinct keys: the indices grouped by key, in order,
    # then the groups by key (linear, where sorting the indices is not).
    groups: dict[KeyT, list[int]] = {}
    for index, key in enumerate(keys):
        group = groups.get(key)
        if group is None:
            groups[key] = [index]
        else:
            group.append(index)
    return [index for key in sorted(groups) for index in groups[key]]


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
    *,
    report: bool = False,
) -> list[int]:
    """
    Put the ops of `block`, `ops` in program order (all of them, or all but
    the terminator), into `order`, and tell the rewriter's listeners of each
    op that moved (those off a longest run already in order: the fewest
    moves). Return the indices of those ops when asked to `report` them or
    when a listener is told; else (nobody to tell) they are not looked for.
    """
    if list(order) == list(range(len(order))):
        return []
    ordered = [ops[index] for index in order]
    if block.last_op is not ops[-1]:
        ordered.append(cast(Operation, block.last_op))  # the terminator stays last
    relink(block, ordered)
    rewriter.has_done_action = True
    if not (report or rewriter.operation_insertion_handler):
        return []
    kept = _longest_increasing(order)
    moved = [index for index in order if index not in kept]
    for index in moved:
        rewriter.handle_operation_insertion(ops[index])
    return moved
