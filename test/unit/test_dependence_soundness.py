"""
The block dependence graph (`passes/analysis/`): sound and precise against a
brute-force all-pairs conflict test, on random blocks; and the check of a
new order without the graph (`order_check.py`) never accepts an order that
breaks one of its edges.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

import pytest
from dependence_helpers import (
    TENSOR,
    append_access,
    append_before_terminator,
    append_offset,
    pipeline_body,
    reachable,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import test as test_dialect
from xdsl.ir import Block, Operation

from passes.analysis import DependenceGraph, DependenceKind, OpSummaries
from passes.analysis.order_check import keeps_dependences
from passes.analysis.windows import LinearForms, access_window
from passes.mechanisms.scheduling import priority_order, sorted_order
from passes.orders.category import ScheduleKey
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.tile import StoreOp

pytestmark = pytest.mark.slow

TILE_SHAPES = ((8, 8), (16, 8), (8, 16), (64, 64))


@dataclass(frozen=True)
class _AccessSpec:
    write: bool
    tensor: int
    """0, 1: distinct arguments; 2: a loop-carried tensor (may alias both)."""
    shape: tuple[int, int]
    offsets: tuple[tuple[int, int], tuple[int, int]]
    """Per dimension `(atom, constant)`: atom 0 none, 1 the induction variable, 2 `%j`."""


_BARRIER = None
_specs = st.lists(
    st.none()
    | st.builds(
        _AccessSpec,
        st.booleans(),
        st.integers(0, 2),
        st.sampled_from(TILE_SHAPES),
        st.tuples(
            *[st.tuples(st.integers(0, 2), st.sampled_from(range(0, 57, 8)))] * 2
        ),
    ),
    max_size=30,
)


@dataclass(frozen=True)
class _Built:
    body: Block
    memory_ops: list[Operation]
    tensors: list[int]
    """Per memory op: 0, 1 distinct arguments, 2 the loop-carried tensor, -1 barrier."""


def _build(specs: Sequence[_AccessSpec | None]) -> _Built:
    """A pipeline body with one memory op per spec (None: a barrier)."""
    entry, body = pipeline_body(TENSOR, TILE_SHAPES)
    x, y, j, *tiles = entry.args
    i, carried = body.args
    atoms = (None, i, j)
    built = _Built(body, [], [])
    for spec in specs:
        if spec is None:
            op: Operation = test_dialect.TestOp()
            append_before_terminator(body, op)
        else:
            offsets = [append_offset(entry, body, atoms[a], c) for a, c in spec.offsets]
            tile = tiles[TILE_SHAPES.index(spec.shape)]
            op = append_access(
                body, spec.write, (x, y, carried)[spec.tensor], tile, offsets
            )
        built.memory_ops.append(op)
        built.tensors.append(-1 if spec is None else spec.tensor)
    return built


def _conflict(built: _Built, a: int, b: int, forms: LinearForms) -> bool:
    """The brute-force conflict test of memory ops `a` and `b`."""
    op_a, op_b = built.memory_ops[a], built.memory_ops[b]
    if not isinstance(op_a, TensorWindowAccess) or not isinstance(
        op_b, TensorWindowAccess
    ):
        return True  # a barrier
    if not (isinstance(op_a, StoreOp) or isinstance(op_b, StoreOp)):
        return False
    tensor_a, tensor_b = built.tensors[a], built.tensors[b]
    if tensor_a != tensor_b:
        return 2 in (tensor_a, tensor_b)
    window_a, window_b = access_window(op_a, forms), access_window(op_b, forms)
    return not window_a.is_disjoint_from(window_b)


@settings(max_examples=300, deadline=None)
@given(_specs, st.randoms(use_true_random=False))
def test_memory_edges_match_all_pairs_conflicts(
    specs: list[_AccessSpec | None], rng: random.Random
):
    built = _build(specs)
    graph = DependenceGraph.build(built.body)
    forms = LinearForms()
    index = [graph.index(op) for op in built.memory_ops]
    conflicts = {
        (a, b)
        for b in range(len(index))
        for a in range(b)
        if _conflict(built, a, b, forms)
    }
    # Sound: the transitive closure orders every conflicting pair.
    reach = reachable(graph)
    for a, b in conflicts:
        assert index[b] in reach[index[a]]
    # Precise: every memory edge is a conflict.
    memory_position = {op_index: n for n, op_index in enumerate(index)}
    for b, op_index in enumerate(index):
        for source, reasons in graph.predecessor_indices(op_index).items():
            if any(r.kind is not DependenceKind.SSA for r in reasons):
                assert (memory_position[source], b) in conflicts
    # Any priority order of the graph keeps every conflicting pair in order.
    keys = [
        ScheduleKey(rng.randrange(3), (), rng.randrange(2), ())
        for _ in range(len(graph.ops))
    ]
    position = {op_index: n for n, op_index in enumerate(priority_order(graph, keys))}
    for a, b in conflicts:
        assert position[index[a]] < position[index[b]]


def _random_topological_order(
    graph: DependenceGraph, rng: random.Random, *, ssa_only: bool = False
) -> list[int]:
    """A random order that keeps every edge of `graph`, or only its SSA edges."""
    successors: list[list[int]] = [[] for _ in graph.ops]
    waiting = [0] * len(graph.ops)
    for target in range(len(graph.ops)):
        for source, reasons in graph.predecessor_indices(target).items():
            if not ssa_only or any(r.kind is DependenceKind.SSA for r in reasons):
                successors[source].append(target)
                waiting[target] += 1
    ready = [i for i, count in enumerate(waiting) if not count]
    order: list[int] = []
    while ready:
        emitted = ready.pop(rng.randrange(len(ready)))
        order.append(emitted)
        for successor in successors[emitted]:
            waiting[successor] -= 1
            if not waiting[successor]:
                ready.append(successor)
    return order


@settings(max_examples=300, deadline=None)
@given(_specs, st.randoms(use_true_random=False))
def test_kept_dependences_keep_every_edge(
    specs: list[_AccessSpec | None], rng: random.Random
):
    """
    `keeps_dependences` accepts an order only if it keeps every edge of the
    graph, on random orders of four kinds (topological, sorted by random
    keys, keeping only the SSA edges, shuffled); a sorted order it accepts is
    the priority order.
    """
    built = _build(specs)
    graph = DependenceGraph.build(built.body)
    keys = [
        ScheduleKey(rng.randrange(3), (), rng.randrange(2), ())
        for _ in range(len(graph.ops))
    ]
    shuffled = list(range(len(graph.ops)))
    rng.shuffle(shuffled)
    orders = [
        _random_topological_order(graph, rng),
        sorted_order(keys),
        _random_topological_order(graph, rng, ssa_only=True),
        shuffled,
    ]
    for order in orders:
        if not keeps_dependences(
            graph.ops, order, OpSummaries(), OpSummaries(windows=False)
        ):
            continue
        position = {op_index: n for n, op_index in enumerate(order)}
        for target in range(len(graph.ops)):
            for source in graph.predecessor_indices(target):
                assert position[source] < position[target]
    if keeps_dependences(
        graph.ops, orders[1], OpSummaries(), OpSummaries(windows=False)
    ):
        assert orders[1] == priority_order(graph, keys)


def test_kept_dependences_without_memory_conflicts():
    """
    Reads of one tensor reordered around writes of another argument keep
    the dependences; a write moved before a read of the same tensor, or of
    the loop-carried tensor that may alias it, does not; nor does any access
    moved across a barrier.
    """
    # Memory ops: 0 read %x, 1 write %y, 2 read %y, 3 read %x, 4 read %v.
    built = _build(
        [
            _AccessSpec(False, 0, (8, 8), ((0, 0), (0, 0))),
            _AccessSpec(True, 1, (8, 8), ((0, 0), (0, 0))),
            _AccessSpec(False, 1, (8, 8), ((0, 8), (0, 0))),
            _AccessSpec(False, 0, (8, 8), ((0, 16), (0, 0))),
            _AccessSpec(False, 2, (8, 8), ((0, 0), (0, 0))),
        ]
    )
    ops = DependenceGraph.build(built.body).ops
    index = [ops.index(op) for op in built.memory_ops]

    def kept(*memory_order: int) -> bool:
        # The ops but the memory ops in place, those in `memory_order`.
        moved = iter(index[m] for m in memory_order)
        order = [next(moved) if i in index else i for i in range(len(ops))]
        return keeps_dependences(ops, order, OpSummaries(), OpSummaries(windows=False))

    assert kept(0, 1, 2, 3, 4)
    assert kept(0, 3, 1, 2, 4)  # %x read before the write of %y
    assert not kept(0, 2, 1, 3, 4)  # %y read before its write
    assert not kept(0, 4, 1, 2, 3)  # %v may alias %y

    with_barrier = _build([None, _AccessSpec(False, 0, (8, 8), ((0, 0), (0, 0)))])
    ops = DependenceGraph.build(with_barrier.body).ops
    barrier, read = (ops.index(op) for op in with_barrier.memory_ops)
    order = list(range(len(ops)))
    order[barrier], order[read] = read, barrier
    assert not keeps_dependences(ops, order, OpSummaries(), OpSummaries(windows=False))
