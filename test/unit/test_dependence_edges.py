"""The block dependence graph (`passes/analysis/`): its edges on small blocks."""

from __future__ import annotations

from dependence_helpers import CountingForms, memory_accesses
from xdsl.dialects import test as test_dialect
from xdsl.ir import Operation
from xdsl.parser import Parser

from passes.analysis import (
    AccessKind,
    Dependence,
    DependenceGraph,
    DependenceKind,
    OpSummaries,
)
from passes.analysis.frontier import is_noalias_argument
from passes.analysis.windows import LinearForms
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp


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


def test_nested_reads_are_outlined_and_summarized_only_when_written():
    loop = """
    scf.for %j = %c0 to %c1 step %c1 {
      %r = pypto.tile.load %y[%j] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
      pypto.tile.store %t, %x[%j] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    } {label = "loop"}
    """
    # %y is not written in the block: the loop's read is only outlined.
    store_y = 'pypto.tile.store %t, %x[%c128] {label = "w"} : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>'
    graph, ops = _pipeline_graph(_kernel(loop + store_y))
    assert _edges(graph, ops) == {("loop", "w")}
    forms = CountingForms()
    DependenceGraph.build(graph.block, OpSummaries(forms))
    assert forms.asked == 2  # the offsets of the stores, not of the load
    outline = OpSummaries().outline(ops["loop"])
    assert outline is not None
    assert [a.kind for a in outline.accesses] == [AccessKind.WRITE]
    assert [v.name_hint for v in outline.read_tensors] == ["y"]
    # A write of %y, before or after the loop: the nested read orders it.
    write_y = store_y.replace("%x[", "%y[")
    for body, expected in (
        (loop + write_y, ("loop", "w")),
        (write_y + loop, ("w", "loop")),
    ):
        graph, ops = _pipeline_graph(_kernel(body))
        (edge,) = _edges(graph, ops)
        assert edge == expected
        reasons = graph.predecessors(ops[expected[1]])[ops[expected[0]]]
        assert {r.kind for r in reasons} == {
            DependenceKind.WRITE_AFTER_READ
            if expected[0] == "loop"
            else DependenceKind.READ_AFTER_WRITE
        }


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
