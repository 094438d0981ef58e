"""
The recurrence bound of a loop (RecMII): however many engines it had, an
iteration cannot start less than this after the previous one, because a
chain of dependences leads from each iteration into the next.

A loop body is a graph whose nodes are its ops (the model's steps: a scalar
op of a two-core loop once per core), each taking its duration, and whose
edges are dependences: within one iteration (transit 0) or into the next one
(transit 1: an iter_arg, an accumulator, a window written then read). Each
cycle of that graph takes its ops' durations plus its edges' delays to come
back to where it started, `transit` iterations later; the recurrence bound
is the largest such ratio (the maximum cycle ratio), 0 when there is no
cycle.

It is computed exactly with Howard's policy iteration (Cochet-Terrasson et
al., "Numerical computation of spectral elements in max-plus algebra", 1998)
on the strongly connected components that hold a cycle: each round is linear
in the edges, and it usually needs a handful of rounds. The rounds are
capped (`MAX_ROUNDS`); a search cut there returns the ratio of a real cycle,
so a lower bound, and says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from passes.schedule.timeline import LoopModel

MAX_ROUNDS = 1_000
"""Policy improvements at most (each linear in the edges)."""


class CycleEdge(NamedTuple):
    """`target` cannot start until `weight` after `source` started, `transit` iterations later."""

    source: int
    target: int
    weight: float
    transit: int


@dataclass(frozen=True)
class CycleRatio:
    """The maximum cycle ratio of a graph, and whether it is exact."""

    ratio: float
    exact: bool
    """False when the policy iteration stopped at `MAX_ROUNDS`: a lower bound."""
    cycle: tuple[int, ...] = ()
    """The nodes of a cycle with that ratio, in order (empty without a cycle)."""


def _cyclic_components(
    num_nodes: int, successors: Sequence[Sequence[int]]
) -> list[int]:
    """
    The strongly connected component of each node (Tarjan's algorithm, with
    an explicit stack), or -1 for a node on no cycle.
    """
    index = [-1] * num_nodes
    low = [0] * num_nodes
    component = [-1] * num_nodes
    on_stack = [False] * num_nodes
    stack: list[int] = []
    counter = 0
    found = 0
    for root in range(num_nodes):
        if index[root] != -1:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            node, position = work[-1]
            if position < len(successors[node]):
                work[-1] = (node, position + 1)
                successor = successors[node][position]
                if index[successor] == -1:
                    index[successor] = low[successor] = counter
                    counter += 1
                    stack.append(successor)
                    on_stack[successor] = True
                    work.append((successor, 0))
                elif on_stack[successor]:
                    low[node] = min(low[node], index[successor])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] != index[node]:
                continue
            members: list[int] = []
            while True:
                member = stack.pop()
                on_stack[member] = False
                members.append(member)
                if member == node:
                    break
            if len(members) > 1 or node in successors[node]:
                for member in members:
                    component[member] = found
                found += 1
    return component


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def max_cycle_ratio(num_nodes: int, edges: Sequence[CycleEdge]) -> CycleRatio:
    """
    The largest `sum(weight) / sum(transit)` over the cycles of the graph
    (0 without a cycle). Every cycle must have a positive transit.
    """
    successors: list[list[int]] = [[] for _ in range(num_nodes)]
    for edge in edges:
        successors[edge.source].append(edge.target)
    component = _cyclic_components(num_nodes, successors)
    # Only the edges inside a cyclic component: each of its nodes has one.
    out: list[list[CycleEdge]] = [[] for _ in range(num_nodes)]
    for edge in edges:
        if component[edge.source] != -1 and (
            component[edge.source] == component[edge.target]
        ):
            out[edge.source].append(edge)
    nodes = [node for node in range(num_nodes) if out[node]]
    if not nodes:
        return CycleRatio(0.0, True)
    policy = {node: max(out[node], key=lambda e: e.weight) for node in nodes}
    for _ in range(MAX_ROUNDS):
        ratio, value, cycles = _evaluate(nodes, policy)
        if not _improve(nodes, out, policy, ratio, value):
            best = max(cycles, key=lambda c: c[0])
            return CycleRatio(best[0], True, best[1])
    ratio, _, cycles = _evaluate(nodes, policy)
    best = max(cycles, key=lambda c: c[0])
    return CycleRatio(best[0], False, best[1])


def _evaluate(
    nodes: Sequence[int], policy: Mapping[int, CycleEdge]
) -> tuple[dict[int, float], dict[int, float], list[tuple[float, tuple[int, ...]]]]:
    """
    The ratio and the value of each node under `policy` (one out-edge per
    node: each walk ends in a cycle), and the cycles with their ratios.
    """
    ratio: dict[int, float] = {}
    value: dict[int, float] = {}
    cycles: list[tuple[float, tuple[int, ...]]] = []
    stamp: dict[int, int] = {}
    for start in nodes:
        if start in ratio:
            continue
        path: list[int] = []
        node = start
        while node not in ratio and node not in stamp:
            stamp[node] = start
            path.append(node)
            node = policy[node].target
        if node not in ratio:  # a new cycle, from `node` to the end of `path`
            cycle = path[path.index(node) :]
            weight = sum(policy[member].weight for member in cycle)
            transit = sum(policy[member].transit for member in cycle)
            cycle_ratio = weight / transit
            cycles.append((cycle_ratio, tuple(cycle)))
            ratio[node], value[node] = cycle_ratio, 0.0
            del path[path.index(node) :]
            for member in reversed(cycle[1:]):
                _settle(member, policy[member], cycle_ratio, ratio, value)
        for member in reversed(path):
            edge = policy[member]
            _settle(member, edge, ratio[edge.target], ratio, value)
    return ratio, value, cycles


def _settle(
    node: int,
    edge: CycleEdge,
    node_ratio: float,
    ratio: dict[int, float],
    value: dict[int, float],
) -> None:
    ratio[node] = node_ratio
    value[node] = edge.weight - node_ratio * edge.transit + value[edge.target]


def _improve(
    nodes: Sequence[int],
    out: Sequence[Sequence[CycleEdge]],
    policy: dict[int, CycleEdge],
    ratio: dict[int, float],
    value: dict[int, float],
) -> bool:
    """Switch nodes to better out-edges: a larger ratio first, else a larger value."""
    changed = False
    for node in nodes:
        best = policy[node]
        for edge in out[node]:
            if ratio[edge.target] > ratio[best.target] and not _close(
                ratio[edge.target], ratio[best.target]
            ):
                best = edge
        if best is not policy[node]:
            policy[node] = best
            changed = True
    if changed:
        return True
    for node in nodes:
        own = ratio[node]
        best, best_value = policy[node], value[node]
        for edge in out[node]:
            if not _close(ratio[edge.target], own):
                continue
            candidate = edge.weight - own * edge.transit + value[edge.target]
            if candidate > best_value and not _close(candidate, best_value):
                best, best_value = edge, candidate
        if best is not policy[node]:
            policy[node] = best
            changed = True
    return changed


def recurrence_bound(loop: LoopModel) -> CycleRatio:
    """
    RecMII of a prepared loop body, per iteration of the loop: the maximum
    cycle ratio of its dependences (`loop.edges`: SSA and memory, within an
    iteration and into the next: iter_args, accumulators, windows written
    then read) between its steps, each weighing its source's duration plus
    the sync latency where a flag carries it. The reuse of a tile's buffer
    by the next instance of its producer is not one: it is what the stages
    of a pipeline change.
    """
    steps = loop.steps
    sync = loop.model.sync_latency
    flagged = [(dict(step.same), dict(step.previous)) for step in steps]
    edges: list[CycleEdge] = []
    for edge in loop.edges:
        sources = loop.steps_of[loop.ops[edge.source]]
        for target in loop.steps_of[loop.ops[edge.target]]:
            waits = flagged[target][edge.carried]
            edges.extend(
                CycleEdge(
                    source,
                    target,
                    steps[source].cost.duration + (sync if waits[source] else 0.0),
                    int(edge.carried),
                )
                for source in sources
                if source in waits
            )
    return max_cycle_ratio(len(steps), edges)
