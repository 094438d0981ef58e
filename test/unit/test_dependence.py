"""The block dependence graph (`passes/analysis/`)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from dependence_helpers import memory_accesses
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import arith, func
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.parser import Parser

from passes.analysis import (
    AccessKind,
    Dependence,
    DependenceGraph,
    DependenceKind,
    OpSummaries,
)
from passes.analysis.frontier import is_noalias_argument
from passes.analysis.windows import LinearForm, LinearForms, access_window
from passes.io_order_policy import ScheduleKey
from passes.scheduling import priority_order
from pypto_dialect.context import pypto_context
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.tile import LoadOp, StoreOp
from pypto_dialect.types import MemorySpace, TensorType, TileType

INDEX = IndexType()


def _pipeline_graph(text: str) -> tuple[DependenceGraph, dict[str, Operation]]:
    """The graph of the first pipeline body, and its ops by `label` / result name."""
    ctx = pypto_context()
    ctx.load_dialect(test_dialect.Test)
    module = Parser(ctx, text).parse_module()
    module.verify()
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    graph = DependenceGraph.build(pipeline.body.block)
    named: dict[str, Operation] = {}
    for op in graph.ops:
        if (label := op.attributes.get("label")) is not None:
            named[str(label).strip('"')] = op
        for result in op.results:
            if result.name_hint is not None:
                named[result.name_hint] = op
    return graph, named


def _edges(graph: DependenceGraph, ops: dict[str, Operation]) -> set[tuple[str, str]]:
    names = {op: name for name, op in ops.items()}
    return {
        (names[source], names[target])
        for target in graph.ops
        if target in names
        for source in graph.predecessors(target)
        if source in names
    }


_HEADER = """
func.func private @opaque() -> ()
func.func @k(%x: !pypto.tensor<256xf32>, %y: !pypto.tensor<256xf32>, %t: !pypto.tile<64xf32, vec>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
"""


def _kernel(body: str, *, iter_args: str = "") -> str:
    return (
        _HEADER
        + f"  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {iter_args}{{\n"
        + body
        + "\n  }\n  func.return\n}\n"
    )


def test_ssa_edges_including_nested_uses():
    graph, ops = _pipeline_graph(
        _kernel("""
    %a = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
    %b = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
    scf.if %cond {
      %c = pypto.tile.add %a, %t {label = "inner"} : !pypto.tile<64xf32, vec>
      "test.pureop"(%c) : (!pypto.tile<64xf32, vec>) -> ()
    } {label = "if"}
    %d = pypto.tile.add %b, %b : !pypto.tile<64xf32, vec>
    """)
    )
    assert _edges(graph, ops) == {("a", "if"), ("b", "d")}
    (reason,) = graph.predecessors(ops["if"])[ops["a"]]
    assert reason == Dependence(DependenceKind.SSA, ops["a"].results[0])
    assert str(reason) == "uses %a"
    assert graph.successors(ops["a"]) == (ops["if"],)


def test_terminator_is_excluded():
    graph, _ = _pipeline_graph(
        _kernel(
            """
    %n = pypto.tile.neg %acc : !pypto.tile<64xf32, vec>
    pypto.yield %n : !pypto.tile<64xf32, vec>""",
            iter_args="iter_args(%acc = %t) -> (!pypto.tile<64xf32, vec>) ",
        )
    )
    assert [op.name for op in graph.ops] == ["pypto.tile.neg"]


def test_memory_dependence_kinds():
    graph, ops = _pipeline_graph(
        _kernel("""
    %r1 = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %x[%c0] {label = "w1"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    %r2 = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %x[%c0] {label = "w2"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    """)
    )
    assert _edges(graph, ops) == {
        ("r1", "w1"),
        ("w1", "r2"),
        ("w1", "w2"),
        ("r2", "w2"),
    }
    x = ops["r1"].operands[0]
    assert graph.predecessors(ops["w1"])[ops["r1"]] == (
        Dependence(DependenceKind.WRITE_AFTER_READ, x),
    )
    assert graph.predecessors(ops["r2"])[ops["w1"]] == (
        Dependence(DependenceKind.READ_AFTER_WRITE, x),
    )
    assert graph.predecessors(ops["w2"])[ops["w1"]] == (
        Dependence(DependenceKind.WRITE_AFTER_WRITE, x),
    )
    assert str(graph.predecessors(ops["r2"])[ops["w1"]][0]) == "read after write of %x"


def test_reads_do_not_conflict_and_disjoint_windows_do_not_conflict():
    graph, ops = _pipeline_graph(
        _kernel("""
    %r1 = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %r2 = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %x[%c64] {label = "w"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    %off = arith.addi %i, %c64 : index
    pypto.tile.store %t, %y[%i] {label = "wi"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    %r3 = pypto.tile.load %y[%off] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    """)
    )
    assert _edges(graph, ops) == {("off", "r3")}


def test_noalias_arguments_and_other_tensors():
    graph, ops = _pipeline_graph(
        _kernel(
            """
    pypto.tile.store %t, %x[%c0] {label = "wx"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    %ry = pypto.tile.load %y[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %rv = pypto.tile.load %v[%c128] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %v[%c64] {label = "wv"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    pypto.yield %v : !pypto.tensor<256xf32>""",
            iter_args="iter_args(%v = %x) -> (!pypto.tensor<256xf32>) ",
        )
    )
    # %x and %y are distinct arguments; %v (loop-carried) may alias both, but
    # its own windows are still compared with each other.
    assert _edges(graph, ops) == {("wx", "rv"), ("wx", "wv"), ("ry", "wv")}
    assert is_noalias_argument(ops["wx"].operands[1])
    assert not is_noalias_argument(ops["rv"].operands[0])


def test_unknown_effects_are_barriers():
    graph, ops = _pipeline_graph(
        _kernel("""
    %r1 = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %n = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
    func.call @opaque() {label = "call"} : () -> ()
    %r2 = pypto.tile.load %y[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %m = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
    scf.if %cond {
      "test.op"() : () -> ()
    } {label = "if"}
    %r3 = pypto.tile.load %y[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    """)
    )
    assert _edges(graph, ops) == {
        ("r1", "call"),
        ("call", "r2"),
        ("call", "if"),
        ("r2", "if"),
        ("if", "r3"),
    }
    assert graph.predecessors(ops["r2"])[ops["call"]] == (
        Dependence(DependenceKind.UNKNOWN_EFFECTS),
    )


def test_channel_ops_keep_their_order():
    graph, ops = _pipeline_graph(
        _kernel("""
    pypto.tile.tpush_to_aiv %t {label = "push"} : !pypto.tile<64xf32, vec>
    %p = pypto.tile.tpop_from_aic : !pypto.tile<64xf32, vec>
    %q = pypto.tile.tpop_from_aiv : !pypto.tile<64xf32, vec>
    %r = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    """)
    )
    assert _edges(graph, ops) == {("push", "p"), ("p", "q")}
    assert "write after write on pypto.channel.aiv_to_aic" in {
        str(reason) for reason in graph.predecessors(ops["q"])[ops["p"]]
    }


def test_nested_accesses_hide_inner_offsets():
    graph, ops = _pipeline_graph(
        _kernel("""
    scf.for %j = %c0 to %c1 step %c1 {
      pypto.tile.store %t, %x[%j] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    } {label = "loop"}
    %r1 = pypto.tile.load %x[%c128] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    scf.if %cond {
      %in = arith.addi %c64, %c64 : index
      pypto.tile.store %t, %y[%in] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    } {label = "if"}
    %r2 = pypto.tile.load %y[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    """)
    )
    # %j is defined inside the loop: that store may touch any element. The
    # offset inside the scf.if folds to the constant 128: disjoint from [0, 64).
    assert _edges(graph, ops) == {("loop", "r1")}
    accesses = memory_accesses(ops["loop"], LinearForms())
    assert accesses is not None
    (store,) = accesses
    assert store.kind is AccessKind.WRITE
    assert store.window.dims[0].offset is None


def test_summaries_count_nested_accesses_once_and_keep_outer_uses():
    _, ops = _pipeline_graph(
        _kernel("""
    scf.for %j = %c0 to %c1 step %c1 {
      %o = arith.addi %j, %c64 : index
      pypto.tile.store %t, %x[%j] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
      pypto.tile.store %t, %x[%o] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
      %r = pypto.tile.load %y[%i] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    } {label = "loop"}
    """)
    )
    summaries = OpSummaries()
    accesses = summaries.accesses(ops["loop"])
    assert accesses is not None
    # Both stores may touch any element of %x: seen from outside, one access.
    store, load = accesses
    assert store.kind is AccessKind.WRITE
    assert store.value is not None and store.value.name_hint == "x"
    assert store.window.dims[0].offset is None
    assert load.kind is AccessKind.READ
    assert load.window.dims[0].offset is not None
    # Values defined inside the loop (%j, %o, %r) are not uses of the loop.
    uses = {value.name_hint for value in summaries.uses(ops["loop"])}
    assert uses == {"c0", "c1", "c64", "t", "x", "y", "i"}


def test_covered_accesses_leave_the_frontier_but_stay_ordered():
    graph, ops = _pipeline_graph(
        _kernel("""
    %r = pypto.tile.load %x[%c64] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %big = pypto.tile.full %f : f32 -> !pypto.tile<256xf32, vec>
    pypto.tile.store %big, %x[%c0] {label = "cover"} : !pypto.tile<256xf32, vec>, !pypto.tensor<256xf32>
    pypto.tile.store %t, %x[%c64] {label = "w"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    """).replace("%cond: i1)", "%cond: i1, %f: f32)")
    )
    # No direct edge r -> w: the covering store is between them.
    assert _edges(graph, ops) == {("big", "cover"), ("r", "cover"), ("cover", "w")}


# --------------------------------------------------------------------------- #
# Soundness against all pairs, on random blocks
# --------------------------------------------------------------------------- #

TENSOR = TensorType([64, 64], f32)
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


def _constant(block: Block, value: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, INDEX))
    block.add_op(op)
    return op.result


def _pipeline_body(
    tensor: TensorType, tile_shapes: Sequence[tuple[int, ...]]
) -> tuple[Block, Block]:
    """
    An entry block `(%x, %y: tensor, %j: index, tiles...)` of a `func.func`
    and the body `(%i, %v: tensor)` of the pipeline in it, `%v` loop-carried.
    """
    tiles = [TileType(shape, f32, MemorySpace.VEC) for shape in tile_shapes]
    entry = Block(arg_types=[tensor, tensor, INDEX, *tiles])
    body = Block(arg_types=[INDEX, tensor])
    body.add_op(YieldOp(body.args[1]))
    one = _constant(entry, 1)
    entry.add_ops(
        [PipelineOp(one, one, one, [entry.args[0]], body, 1), func.ReturnOp()]
    )
    func.FuncOp("k", (entry.arg_types, ()), Region(entry))
    return entry, body


def _append(body: Block, op: Operation) -> None:
    """Add `op` before the terminator of `body`."""
    terminator = body.last_op
    assert terminator is not None
    body.insert_op_before(op, terminator)


def _access(
    body: Block,
    write: bool,
    tensor: SSAValue,
    tile: SSAValue,
    offsets: Sequence[SSAValue],
) -> Operation:
    tile_type = tile.type
    assert isinstance(tile_type, TileType)
    op = StoreOp(tile, tensor, offsets) if write else LoadOp(tensor, offsets, tile_type)
    _append(body, op)
    return op


def _offset(
    entry: Block, body: Block, atom: SSAValue | None, constant: int
) -> SSAValue:
    value = _constant(entry, constant)
    if atom is None:
        return value
    add = arith.AddiOp(atom, value)
    _append(body, add)
    return add.result


@dataclass(frozen=True)
class _Built:
    body: Block
    memory_ops: list[Operation]
    tensors: list[int]
    """Per memory op: 0, 1 distinct arguments, 2 the loop-carried tensor, -1 barrier."""


def _build(specs: Sequence[_AccessSpec | None]) -> _Built:
    """A pipeline body with one memory op per spec (None: a barrier)."""
    entry, body = _pipeline_body(TENSOR, TILE_SHAPES)
    x, y, j, *tiles = entry.args
    i, carried = body.args
    atoms = (None, i, j)
    built = _Built(body, [], [])
    for spec in specs:
        if spec is None:
            op: Operation = test_dialect.TestOp()
            _append(body, op)
        else:
            offsets = [_offset(entry, body, atoms[a], c) for a, c in spec.offsets]
            tile = tiles[TILE_SHAPES.index(spec.shape)]
            op = _access(body, spec.write, (x, y, carried)[spec.tensor], tile, offsets)
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
        ScheduleKey(rng.randrange(3), (), rng.randrange(2), (), n)
        for n in range(len(graph.ops))
    ]
    position = {op_index: n for n, op_index in enumerate(priority_order(graph, keys))}
    for a, b in conflicts:
        assert position[index[a]] < position[index[b]]


# --------------------------------------------------------------------------- #
# Cost: candidate pairs examined, counted (not timed)
# --------------------------------------------------------------------------- #


def _one_tensor(
    accesses: Sequence[tuple[bool, int]], extent: int, *, symbolic: bool = True
) -> DependenceGraph:
    """The graph of `(write, constant offset)` accesses to one 1-D tensor, at `%i + offset`."""
    size = max(offset for _, offset in accesses) + extent
    entry, body = _pipeline_body(TensorType([size], f32), [(extent,)])
    x, tile, i = entry.args[0], entry.args[3], body.args[0]
    for write, constant in accesses:
        offset = _offset(entry, body, i if symbolic else None, constant)
        _access(body, write, x, tile, [offset])
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


class _CountingForms(LinearForms):
    """Linear forms that count the values asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def of(self, value: SSAValue) -> LinearForm:
        self.asked += 1
        return super().of(value)


def _reads_and_stores(written: int) -> tuple[DependenceGraph, _CountingForms]:
    """N loads of %x, then N stores to tensor `written` (1: %y, 2: the carried %v)."""
    entry, body = _pipeline_body(TENSOR, [(8, 8)])
    x, tile, i = entry.args[0], entry.args[3], body.args[0]
    tensors = (x, entry.args[1], body.args[1])
    for k in range(N // 10):
        _access(body, False, x, tile, [_offset(entry, body, i, 8 * k)] * 2)
    for k in range(N // 10):
        offset = _offset(entry, body, i, 8 * k)
        _access(body, True, tensors[written], tile, [offset] * 2)
    forms = _CountingForms()
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
