"""
The block dependence graph (`passes/analysis/`): sound and precise against a
brute-force all-pairs conflict test, on random blocks.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from dependence_helpers import (
    TENSOR,
    append_access,
    append_before_terminator,
    append_offset,
    pipeline_body,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import test as test_dialect
from xdsl.ir import Block, Operation

from passes.analysis import DependenceGraph, DependenceKind
from passes.analysis.windows import LinearForms, access_window
from passes.io_order_policy import ScheduleKey
from passes.scheduling import priority_order
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.tile import StoreOp

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


def _reachable(graph: DependenceGraph) -> list[set[int]]:
    reach: list[set[int]] = []
    for start in range(len(graph.ops)):
        seen: set[int] = set()
        stack = [start]
        while stack:
            for successor in graph.successor_indices(stack.pop()):
                if successor not in seen:
                    seen.add(successor)
                    stack.append(successor)
        reach.append(seen)
    return reach


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
    reach = _reachable(graph)
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
