"""
The block dependence graph (`passes/analysis/`): its cost, as the candidate
pairs it examines, counted (not timed).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

import pytest
from dependence_helpers import (
    TENSOR,
    CountingForms,
    append_access,
    append_offset,
    pipeline_body,
)
from xdsl.dialects.builtin import f32

from passes.analysis import DependenceGraph, DependenceKind, OpSummaries
from pypto_dialect.types import TensorType

pytestmark = pytest.mark.slow


def _one_tensor(
    accesses: Sequence[tuple[bool, int]], extent: int, *, symbolic: bool = True
) -> DependenceGraph:
    """The graph of `(write, constant offset)` accesses to one 1-D tensor, at `%i + offset`."""
    size = max(offset for _, offset in accesses) + extent
    entry, body = pipeline_body(TensorType([size], f32), [(extent,)])
    x, tile, i = entry.args[0], entry.args[3], body.args[0]
    for write, constant in accesses:
        offset = append_offset(entry, body, i if symbolic else None, constant)
        append_access(body, write, x, tile, [offset])
    return DependenceGraph.build(body)


def _memory_edges(graph: DependenceGraph) -> int:
    return sum(
        1
        for n in range(len(graph.ops))
        for reasons in graph.predecessor_indices(n).values()
        if any(r.kind is not DependenceKind.SSA for r in reasons)
    )


N = 2000


def test_disjoint_stores_examine_no_pair():
    for symbolic in (True, False):
        graph = _one_tensor([(True, 16 * k) for k in range(N)], 16, symbolic=symbolic)
        assert _memory_edges(graph) == 0
        assert graph.num_comparisons == 0


def test_stores_to_one_window_examine_one_pair_each():
    graph = _one_tensor([(True, 0)] * N, 16)
    assert _memory_edges(graph) == N - 1
    assert graph.num_comparisons == N - 1


def test_overlapping_neighbours_stay_linear():
    graph = _one_tensor([(True, 8 * k) for k in range(N)], 16)
    assert _memory_edges(graph) == N - 1
    assert graph.num_comparisons <= 2 * N


def test_in_place_copies_stay_linear():
    accesses = [(write, 128 * k) for k in range(N // 2) for write in (False, True)]
    graph = _one_tensor(accesses, 128)
    assert _memory_edges(graph) == N // 2
    assert graph.num_comparisons <= N


def test_random_accesses_stay_near_linear():
    rng = random.Random(4)
    accesses = [(rng.random() < 0.5, rng.randrange(0, 64 * N, 8)) for _ in range(N)]
    graph = _one_tensor(accesses, 32)
    bound = graph.num_edges + N * math.ceil(math.log2(N))
    assert graph.num_comparisons <= bound


def _reads_and_stores(written: int) -> tuple[DependenceGraph, CountingForms]:
    """N loads of %x, then N stores to tensor `written` (1: %y, 2: the carried %v)."""
    entry, body = pipeline_body(TENSOR, [(8, 8)])
    x, tile, i = entry.args[0], entry.args[3], body.args[0]
    tensors = (x, entry.args[1], body.args[1])
    for k in range(N // 10):
        append_access(body, False, x, tile, [append_offset(entry, body, i, 8 * k)] * 2)
    for k in range(N // 10):
        offset = append_offset(entry, body, i, 8 * k)
        append_access(body, True, tensors[written], tile, [offset] * 2)
    forms = CountingForms()
    return DependenceGraph.build(body, OpSummaries(forms)), forms


def test_reads_no_write_may_touch_compute_no_window():
    # %y is another argument: only the stores' windows are computed.
    graph, forms = _reads_and_stores(written=1)
    assert forms.asked == 2 * (N // 10)
    assert _memory_edges(graph) == 0
    # The carried %v may alias %x: every load is compared, and ordered.
    graph, forms = _reads_and_stores(written=2)
    assert forms.asked == 4 * (N // 10)
    assert _memory_edges(graph) > 0
