"""The `canonicalize-io-order` pass through its Python API."""

from __future__ import annotations

from contextlib import redirect_stderr
from dataclasses import replace
from io import StringIO

import pytest
from helpers import LOWERED_CORPUS, lowered, parse, print_ir
from ir_integrity import apply_checked, check_integrity
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
)
from xdsl.utils.exceptions import PassFailedException

from bench.cases import WindowMode, items_module, nested_module
from passes.analysis import Dependence, DependenceGraph, DependenceKind, OpSummaries
from passes.canonicalize_io_order import (
    CanonicalizeIOOrderPass,
    CanonicalizeIOOrderPattern,
)
from passes.mechanisms.demote import demote_to_scf_for
from passes.mechanisms.scheduling import move_into_order, priority_order
from passes.orders.category import Category, ScheduleKey, classify, schedule_keys
from pypto_dialect.attributes import MembershipAttr
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp


def canonicalize(module: ModuleOp, *, explain: bool = False) -> ModuleOp:
    apply_checked(CanonicalizeIOOrderPass(explain=explain), pypto_context(), module)
    return module


def body(module: ModuleOp) -> Block:
    """The body of the first loop (pipeline or, after the pass, scf.for)."""
    loop = next(op for op in module.walk() if isinstance(op, PipelineOp | scf.ForOp))
    return loop.body.block


STAGE_TWO = """
func.func @k(%x: !pypto.tensor<512xf32>, %out: !pypto.tensor<512xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c8 step %c2 stages 1 {
    %off = arith.muli %i, %c64 : index
    %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<512xf32> -> !pypto.tile<64xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %y, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<512xf32>
    %off_1 = arith.addi %off, %c64 : index
    %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<512xf32> -> !pypto.tile<64xf32, vec>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %y_1, %out[%off_1] : !pypto.tile<64xf32, vec>, !pypto.tensor<512xf32>
  }
  func.return
}
"""

CANONICAL_ORDER = [
    "arith.muli",
    "arith.addi",
    "pypto.tile.load",
    "pypto.tile.load",
    "pypto.tile.exp",
    "pypto.tile.store",
    "pypto.tile.exp",
    "pypto.tile.store",
    "scf.yield",
]


def test_reorders_and_demotes():
    module = canonicalize(parse(STAGE_TWO))
    assert [op.name for op in body(module).ops] == CANONICAL_ORDER
    assert not any(isinstance(op, PipelineOp) for op in module.walk())
    memberships = [
        op.attributes.get("pypto.pipeline_membership") for op in body(module).ops
    ]
    assert memberships.count(MembershipAttr([(0, 0)])) == 2
    assert memberships.count(MembershipAttr([(0, 1)])) == 2


def reorder_only(module: ModuleOp) -> tuple[bool, list[Operation]]:
    """Run the reordering walk alone; return whether it acted and what it touched."""
    touched: list[Operation] = []
    listener = PatternRewriterListener(
        operation_insertion_handler=[touched.append],
        operation_removal_handler=[touched.append],
        operation_modification_handler=[touched.append],
    )
    changed = PatternRewriteWalker(
        CanonicalizeIOOrderPattern(),
        walk_regions_first=True,
        apply_recursively=False,
        listener=listener,
    ).rewrite_module(module)
    check_integrity(module)
    return changed, touched


def test_canonical_block_sees_no_rewriter_action():
    module = parse(STAGE_TWO)
    changed, touched = reorder_only(module)
    assert changed and touched
    ops = list(body(module).ops)
    assert reorder_only(module) == (False, [])
    assert list(body(module).ops) == ops
    # The full pass keeps the very same ops, in the same order.
    canonicalize(module)
    assert list(body(module).ops)[:-1] == ops[:-1]


def test_pass_is_idempotent_with_double_buffer_acc():
    matmuls = "\n".join(
        f"""
    %m{k} = pypto.tile.matmul %l, %r {{pypto.pipeline_membership = #pypto.membership<0:{k}>}} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m{k}, %out[%c{16 * k}, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>"""
        for k in range(4)
    )
    source = f"""
func.func @k(%l: !pypto.tile<16x32xbf16, left>, %r: !pypto.tile<32x32xbf16, right>, %out: !pypto.tensor<64x32xf32>) {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  pypto.pipeline %i = %c0 to %c4 step %c4 stages 1 double_buffer_acc = true {{{matmuls}
  }}
  func.return
}}
"""
    once = canonicalize(parse(source))
    stages = [
        op.attributes["pypto.pipeline_membership"]
        for op in body(once).ops
        if op.name == "pypto.tile.matmul"
    ]
    assert stages == [MembershipAttr([(0, k % 2)]) for k in range(4)]
    text = print_ir(once)
    assert print_ir(canonicalize(once)) == text


def test_stages_compare_as_integers():
    module = parse(STAGE_TWO.replace("<0:1>", "<0:10>").replace("<0:0>", "<0:2>"))
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    ops = list(pipeline.body.block.ops)
    keys = schedule_keys(ops, pipeline.policy)
    exp_2, exp_10 = keys[2], keys[6]
    assert exp_2 == ScheduleKey(2, (0, 2), 0, ())
    assert exp_10 == ScheduleKey(2, (0, 10), 0, ())
    assert exp_2 < exp_10
    # The untagged store takes the stage of the tile it stores.
    assert keys[3] == ScheduleKey(2, (0, 2), 1, ())
    # Scalars and loads have no stage.
    assert keys[0] == ScheduleKey(0, (), 0, ())
    assert keys[1] == ScheduleKey(1, (), 0, ())


def test_double_buffer_acc_keys():
    module = parse(
        STAGE_TWO.replace("stages 1 {", "stages 1 double_buffer_acc = true {")
    )
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    ops = list(pipeline.body.block.ops)
    keys = schedule_keys(ops, pipeline.policy)
    assert keys[1] == ScheduleKey(1, (-1,), 0, (-1,))
    assert keys[6] == ScheduleKey(2, (0,), 0, (1,))
    assert keys[7] == ScheduleKey(2, (0,), 1, (1,))


SAME_CLASS_SCALAR_AND_NOT = """
func.func @k(%v: vector<4xindex>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c4 stages 1 {
    %w = arith.addi %v, %v : vector<4xindex>
    %j = arith.addi %i, %c4 : index
    %w_1 = arith.addi %v, %v : vector<4xindex>
  }
  func.return
}
"""

TWO_RESULTS_SCALAR_AND_NOT = """
func.func @k(%v: vector<4xi32>, %a: i32) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c4 stages 1 {
    %s, %o = arith.addui_extended %a, %a : i32, i1
    %w, %wo = arith.addui_extended %v, %v : vector<4xi32>, vector<4xi1>
  }
  func.return
}
"""


def test_keys_follow_each_ops_classification():
    """
    The keys memoize categories by op class and result type class: an
    `arith.addi` on vectors is tile compute, on an index a scalar, in either
    order; stores follow the policy of each call.
    """
    for source in (STAGE_TWO, SAME_CLASS_SCALAR_AND_NOT, TWO_RESULTS_SCALAR_AND_NOT):
        pipeline = next(op for op in parse(source).walk() if isinstance(op, PipelineOp))
        ops = list(pipeline.body.block.ops)[:-1]
        for overlap_stores in (True, False, True):
            policy = replace(pipeline.policy, overlap_stores=overlap_stores)
            keys = schedule_keys(ops, policy)
            tiers = [classify(op, overlap_stores=overlap_stores).tier for op in ops]
            assert [key.tier for key in keys] == tiers
    pipeline = next(
        op
        for op in parse(SAME_CLASS_SCALAR_AND_NOT).walk()
        if isinstance(op, PipelineOp)
    )
    keys = schedule_keys(list(pipeline.body.block.ops)[:-1], pipeline.policy)
    assert [key.tier for key in keys] == [2, 0, 2]
    pipeline = next(
        op
        for op in parse(TWO_RESULTS_SCALAR_AND_NOT).walk()
        if isinstance(op, PipelineOp)
    )
    keys = schedule_keys(list(pipeline.body.block.ops)[:-1], pipeline.policy)
    assert [key.tier for key in keys] == [0, 2]  # all results decide


def test_classify_stores_under_policy():
    module = parse(STAGE_TWO)
    store = next(op for op in module.walk() if op.name == "pypto.tile.store")
    assert classify(store) is Category.STORE
    assert classify(store, overlap_stores=False) is Category.TILE_COMPUTE


def test_dependence_cycle_is_an_internal_error():
    module = parse(STAGE_TWO)
    block = body(module)
    ops = list(block.ops)[:2]
    graph = DependenceGraph(block, ops)
    graph.add_edge(0, 1, Dependence(DependenceKind.SSA))
    graph.add_edge(1, 0, Dependence(DependenceKind.SSA))
    keys = [ScheduleKey(0, (), 0, ()) for _ in range(2)]
    with pytest.raises(PassFailedException, match="internal error: dependence cycle"):
        priority_order(graph, keys)


def test_unlowered_pipeline_fails_before_any_change():
    module = parse(
        STAGE_TWO + STAGE_TWO.replace("@k", "@k2").replace("stages 1", "stages 2")
    )
    before = print_ir(module)
    with pytest.raises(PassFailedException, match="stages 2 is not lowered yet"):
        CanonicalizeIOOrderPass().apply(pypto_context(), module)
    assert print_ir(module) == before
    check_integrity(module)


def test_explain_prints_moves(capsys: pytest.CaptureFixture[str]):
    canonicalize(parse(STAGE_TWO), explain=True)
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "canonicalize-io-order: a block of pypto.pipeline in @k:",
        "  #4 -> #1 arith.addi (%off_1): moved",
        "  #5 -> #3 pypto.tile.load (%t_1): moved",
    ]
    canonicalize(parse(STAGE_TWO))
    assert capsys.readouterr().err == ""


def test_demotion_tells_the_listeners_and_keeps_the_uses():
    module = parse(STAGE_TWO)
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    terminator = pipeline.body.block.last_op
    results = list(pipeline.results)
    events: list[tuple[str, str]] = []
    listener = PatternRewriterListener(
        operation_insertion_handler=[lambda op: events.append(("insert", op.name))],
        operation_removal_handler=[lambda op: events.append(("remove", op.name))],
        operation_replacement_handler=[
            lambda op, _: events.append(("replace", op.name))
        ],
    )
    rewriter = PatternRewriter(pipeline)
    rewriter.extend_from_listener(listener)
    loop = demote_to_scf_for(pipeline, rewriter)
    assert rewriter.has_done_action
    assert events == [
        ("insert", "scf.yield"),
        ("replace", "pypto.yield"),
        ("remove", "pypto.yield"),
        ("insert", "scf.for"),
        ("replace", "pypto.pipeline"),
        ("remove", "pypto.pipeline"),
    ]
    assert list(loop.results) == results  # the same objects: no use rewritten
    assert terminator is not None and terminator.parent is None
    assert pipeline.parent is None and not pipeline.regions
    check_integrity(module)


def _canonicalized_both_ways(module: ModuleOp) -> tuple[str, str]:
    """
    `module` after the pass as it runs, and after the pass with every block
    ordered on its dependence graph (`explain` builds the graph of each).
    """
    with_graph = module.clone()
    apply_checked(CanonicalizeIOOrderPass(), pypto_context(), module)
    with redirect_stderr(StringIO()):
        apply_checked(
            CanonicalizeIOOrderPass(explain=True), pypto_context(), with_graph
        )
    return print_ir(module), print_ir(with_graph)


@pytest.mark.parametrize("module", LOWERED_CORPUS)
def test_order_without_the_graph_is_the_graphs_on_the_corpus(module: ModuleOp):
    """Every lowered lit input and example comes out the same either way."""
    fast, with_graph = _canonicalized_both_ways(module.clone())
    assert fast == with_graph


def test_the_lowered_corpus_is_not_empty():
    assert len(LOWERED_CORPUS) >= 20


@pytest.mark.parametrize(
    ("text", "graphs"),
    [
        pytest.param(nested_module(3, 4), 0, id="nested copies"),
        pytest.param(items_module(4, 2, 2, WindowMode.IN_PLACE), 1, id="in place"),
    ],
)
def test_copied_bodies_need_no_graph(
    monkeypatch: pytest.MonkeyPatch, text: str, graphs: int
):
    """
    A lowered nest of copied bodies is ordered without any dependence graph;
    loads of the tensor the body stores to, moved before the stores of the
    earlier stage, need the graph (its windows prove them disjoint).
    """
    module = lowered(parse(text))
    assert module is not None
    fast, with_graph = _canonicalized_both_ways(module.clone())
    assert fast == with_graph
    built: list[Block] = []
    build = DependenceGraph.build

    def counting_build(
        block: Block, summaries: OpSummaries | None = None
    ) -> DependenceGraph:
        built.append(block)
        return build(block, summaries)

    monkeypatch.setattr(DependenceGraph, "build", counting_build)
    apply_checked(CanonicalizeIOOrderPass(), pypto_context(), module)
    assert len(built) == graphs
    assert print_ir(module) == fast


def test_moves_are_looked_for_only_when_someone_is_told():
    """
    The block is reordered either way; the fewest moves (ops off a longest run
    already in order) are returned when asked for, and told to listeners.
    """
    for report, listening in [(False, False), (True, False), (False, True)]:
        block = body(parse(STAGE_TWO))
        ops = list(block.ops)[:-1]  # all but the terminator, as the contract asks
        # 1, 2, 3 and those after 4 stay in order: ops 0 and 4 move
        order = [1, 2, 0, 4, 3, *range(5, len(ops))]
        told: list[Operation] = []
        rewriter = PatternRewriter(ops[0])
        if listening:
            rewriter.operation_insertion_handler.append(told.append)
        moved = move_into_order(block, ops, order, rewriter, report=report)
        assert list(block.ops)[:-1] == [ops[i] for i in order]
        assert rewriter.has_done_action
        assert moved == ([0, 4] if report or listening else [])
        assert told == ([ops[0], ops[4]] if listening else [])
    block = body(parse(STAGE_TWO))
    ops = list(block.ops)[:5]
    rewriter = PatternRewriter(ops[0])
    assert move_into_order(block, ops, range(5), rewriter) == []
    assert not rewriter.has_done_action
