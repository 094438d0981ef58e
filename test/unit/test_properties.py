"""
Differential property tests of both passes on generated kernels.

For `lower-pipeline-loops` (kernels with `stages` 1..8), `canonicalize-io-order`
(kernels with `stages 1` only: it rejects more) and both chained, on every
kernel `bench.kernels.strategies.kernels()` draws:

* the output verifies, its use lists and parent pointers are sound
  (`ir_integrity.py`), and it prints and parses back identically in custom and
  generic form;
* the pass is idempotent (applied again to its output, it prints the same);
* the interpreter gives bit-identical outputs before and after, on the
  kernel's `index_args` and seeded random inputs;
* the independent legality check (`legality.py`) finds no conflicting memory
  accesses whose order changed: the same access sequence after the pass that
  copies ops, the same order of every conflicting pair after the pass that
  moves them.

Blocks that `canonicalize-io-order` orders without their dependence graph
come out as the graph orders them.

Both passes also compose with upstream ones: followed, on the same in-memory
module, by `convert-scf-to-cf`, `canonicalize`, `cse`, `dce` and `licm` (in
a drawn order), the IR stays sound after each pass and the results
bit-identical.

The budget comes from the hypothesis profile (`conftest.py`): a derandomized
one by default, `HYPOTHESIS_PROFILE=campaign` for a long campaign.
"""

from __future__ import annotations

from collections import Counter
from contextlib import redirect_stderr
from io import StringIO

import pytest
from differential import CONTEXT, LOWER, NONE, SEEDS, SLOTS, Run, check_output, lower
from helpers import parse, print_ir
from hypothesis import Phase, event, given, settings
from hypothesis import strategies as st
from ir_integrity import apply_checked
from legality import Trace, copy_violations, reorder_violations, trace_kernel
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass, PassPipeline
from xdsl.transforms import get_all_passes

from bench.kernels.strategies import GeneratedKernel, kernels
from bench.kernels.vocabulary import FEATURES
from passes import canonicalize_io_order
from passes.analysis import Dependence, DependenceGraph, DependenceKind
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.allocation import BindOp
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    random_inputs,
    run_kernel,
)

pytestmark = pytest.mark.slow

LOWER_WITH_LOOP = LowerPipelineLoopsPass(remainder="loop")
CANONICALIZE = CanonicalizeIOOrderPass()
UPSTREAM = PassPipeline.parse_spec(
    get_all_passes(), "convert-scf-to-cf,canonicalize,cse,dce,licm"
).passes
"""Upstream passes that must work on the output of both passes."""
COMPOSITION_BUDGET = (
    settings(max_examples=30)
    if settings.get_current_profile_name() == "ci"
    else settings()
)
"""30 kernels in CI (each goes through seven passes), else the profile's count."""


def _without_allocations(trace: Trace) -> Trace:
    """`trace` without the accesses to declared allocations (bindings)."""
    kept = tuple(a for a in trace.accesses if not a.location.startswith("allocation"))
    return Trace(trace.run, kept, trace.shapes)


def _tensor_copy_violations(before: Trace, after: Trace) -> list[str]:
    """`copy_violations` of the tensors and channels: a binding adds accesses."""
    return copy_violations(_without_allocations(before), _without_allocations(after))


def rotate(run: Run) -> None:
    """Apply `lower-pipeline-to-slots` and check every property."""
    assert run.apply(SLOTS, _tensor_copy_violations) == NONE
    check_output(SLOTS, run.module, round_trip=True)
    if any(isinstance(op, BindOp) for op in run.module.walk()):
        event("lower-pipeline-to-slots rotated a loop")


def canonicalize(run: Run) -> None:
    """Apply `canonicalize-io-order` and check every property."""
    order = [access.instance for access in run.trace.accesses]
    assert run.apply(CANONICALIZE, reorder_violations) == NONE
    check_output(CANONICALIZE, run.module, round_trip=True)
    if order != [access.instance for access in run.trace.accesses]:
        event("canonicalize-io-order reordered memory accesses")


# --------------------------------------------------------------------------- #
# The properties
# --------------------------------------------------------------------------- #


@given(kernels(), SEEDS)
def test_lower_pipeline_loops(kernel: GeneratedKernel, seed: int):
    lower(Run(kernel, seed))


@given(kernels(), SEEDS)
def test_lower_pipeline_loops_with_a_remainder_loop(kernel: GeneratedKernel, seed: int):
    run = Run(kernel, seed)
    lower(run, pass_=LOWER_WITH_LOOP)
    canonicalize(run)


@given(kernels(max_stages=1), SEEDS)
def test_canonicalize_io_order(kernel: GeneratedKernel, seed: int):
    canonicalize(Run(kernel, seed))


@given(kernels(max_stages=1, bindings=True), SEEDS)
def test_canonicalize_io_order_with_bindings(kernel: GeneratedKernel, seed: int):
    """Loads bound to declared allocations: their bindings keep their order."""
    canonicalize(Run(kernel, seed))


@given(kernels(), SEEDS)
def test_both_passes_chained(kernel: GeneratedKernel, seed: int):
    run = Run(kernel, seed)
    lower(run, round_trip=False)  # test_lower_pipeline_loops round-trips its output
    canonicalize(run)


@given(kernels(rotatable=True), SEEDS)
def test_lower_pipeline_to_slots(kernel: GeneratedKernel, seed: int):
    rotate(Run(kernel, seed))


@given(kernels(rotatable=True, bindings=True), SEEDS)
def test_all_three_passes_chained(kernel: GeneratedKernel, seed: int):
    """
    `lower-pipeline-to-slots` in front of both passes: each checked on its
    own input (`lower-pipeline-loops` never meets a binding to copy).
    """
    run = Run(kernel, seed)
    rotate(run)
    lower(run, round_trip=False)
    canonicalize(run)


@given(kernels())
def test_order_without_the_graph_is_the_graphs(kernel: GeneratedKernel):
    """
    The lowered kernel comes out of `canonicalize-io-order` the same whether
    the blocks whose keys' order keeps every dependence skip the dependence
    graph (as the pass runs) or not (`explain` builds every block's graph).
    """
    module = parse(kernel.text)
    LOWER.apply(CONTEXT, module)
    _same_with_the_graph(module)


@given(kernels(rotatable=True))
def test_order_of_rotated_loops_without_the_graph_is_the_graphs(
    kernel: GeneratedKernel,
):
    """As above, with `lower-pipeline-to-slots` in front (blocks with slots)."""
    module = parse(kernel.text)
    SLOTS.apply(CONTEXT, module)
    LOWER.apply(CONTEXT, module)
    _same_with_the_graph(module)


def _same_with_the_graph(module: ModuleOp) -> None:
    with_graph = module.clone()
    CANONICALIZE.apply(CONTEXT, module)
    with redirect_stderr(StringIO()):
        CanonicalizeIOOrderPass(explain=True).apply(CONTEXT, with_graph)
    assert print_ir(module) == print_ir(with_graph)


@COMPOSITION_BUDGET
@given(kernels(), SEEDS, st.permutations(UPSTREAM))
def test_upstream_passes_compose(
    kernel: GeneratedKernel, seed: int, upstream: list[ModulePass]
):
    """
    Both passes, then the upstream ones, on one module in one process: the IR
    stays sound after every pass and the results bit-identical to the input's.
    """
    run = Run(kernel, seed)
    for pass_ in (LOWER, CANONICALIZE, *upstream):
        apply_checked(pass_, CONTEXT, run.module)
    after = run_kernel(run.module, kernel.entry, run.inputs)
    assert compare_runs(run.trace.run, after) == []


@COMPOSITION_BUDGET
@given(kernels(rotatable=True), SEEDS, st.permutations(UPSTREAM))
def test_upstream_passes_compose_with_rotations(
    kernel: GeneratedKernel, seed: int, upstream: list[ModulePass]
):
    """As above, with `lower-pipeline-to-slots` in front."""
    run = Run(kernel, seed)
    for pass_ in (SLOTS, LOWER, CANONICALIZE, *upstream):
        apply_checked(pass_, CONTEXT, run.module)
    after = run_kernel(run.module, kernel.entry, run.inputs)
    assert compare_runs(run.trace.run, after) == []


# --------------------------------------------------------------------------- #
# The generator covers what the passes must handle
# --------------------------------------------------------------------------- #

SAMPLE = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    phases=[Phase.generate],
    deadline=None,
)
"""A fixed sample of kernels, the same on every run, whatever the profile."""


def test_generator_covers_every_feature():
    seen: Counter[str] = Counter()

    @SAMPLE
    @given(kernels())
    def sample(kernel: GeneratedKernel):
        seen.update(kernel.features)

    sample()
    rare = {feature: seen[feature] for feature in FEATURES if seen[feature] < 5}
    assert rare == {}


# --------------------------------------------------------------------------- #
# The legality checks can fail: hand-made reorders
# --------------------------------------------------------------------------- #

ACCESSES = """
func.func @helper() {
  func.return
}
func.func @kernel(%x: !pypto.tensor<16xf32>, %y: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %t = pypto.tile.load %y[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  %u = pypto.tile.load %x[%c4] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  %v = pypto.tile.load %x[%c8] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  pypto.tile.store %v, %x[%c4] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.call @helper() : () -> ()
  pypto.tile.tpush_to_aiv %u : !pypto.tile<8xf32, vec>
  pypto.tile.tpush_to_aiv %v : !pypto.tile<8xf32, vec>
  pypto.tile.tpush_to_aic %t : !pypto.tile<8xf32, vec>
  %w = pypto.tile.tpop_from_aic : !pypto.tile<8xf32, vec>
  pypto.tile.store %w, %y[%c8] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.return
}
"""
"""Top-level ops of @kernel, by position: 3 load %t, 4 store x[0:8], 5 load
%u x[4:12], 6 load %v x[8:16], 7 store x[4:12], 8 call, 9-10 pushes to aiv,
11 push to aic, 12 pop, 13 store y[8:16]."""


def trace_after_moving(moves: list[tuple[int, int]]) -> tuple[Trace, Trace]:
    """
    The traces of `ACCESSES` before and after moving, in turn, each op at
    position `p` (original numbering) right before the op at position `q`.
    """
    module = parse(ACCESSES)
    module.verify()
    block = find_kernel(module, "kernel").body.block
    ops = list(block.ops)
    inputs = random_inputs(find_kernel(module, "kernel"), 0)
    before = trace_kernel(module, "kernel", inputs)
    for moved, anchor in moves:
        ops[moved].detach()
        block.insert_op_before(ops[moved], ops[anchor])
    return before, trace_kernel(module, "kernel", inputs)


@pytest.mark.parametrize(
    ("moves", "violation"),
    [
        pytest.param([(6, 4)], None, id="load hoisted above a disjoint store"),
        pytest.param([(6, 5)], None, id="two loads swapped"),
        pytest.param([(11, 9)], None, id="pushes to two channels swapped"),
        pytest.param(
            [(5, 4)],
            "pypto.tile.load %u (run 0) reads %x[4:12]: element [4] last written "
            "by pypto.tile.store (run 0) writes %x[0:8] before the pass, by the "
            "input after it",
            id="read after write",
        ),
        pytest.param(
            [(6, 5), (7, 5)],
            "pypto.tile.load %u (run 0) reads %x[4:12]: element [4] last written "
            "by pypto.tile.store (run 0) writes %x[0:8] before the pass, by "
            "pypto.tile.store (run 0) writes %x[4:12] after it",
            id="write after read",
        ),
        pytest.param(
            [(7, 4), (6, 7)],
            "pypto.tile.store (run 0) writes %x[4:12]: element [4] last written "
            "by pypto.tile.store (run 0) writes %x[0:8] before the pass, by the "
            "input after it",
            id="write after write",
        ),
        pytest.param(
            [(10, 9)],
            "pypto.tile.tpush_to_aiv (run 0) writes pypto.channel.aic_to_aiv: "
            "last written by pypto.tile.tpush_to_aiv (run 0) writes "
            "pypto.channel.aic_to_aiv before the pass, by the input after it",
            id="pushes to one channel swapped",
        ),
        pytest.param(
            [(9, 8)],
            "pypto.tile.tpush_to_aiv (run 0) writes pypto.channel.aic_to_aiv: the "
            "last op with unknown effects before it is func.call (run 0) writes "
            "unknown memory before the pass, none after it",
            id="push hoisted above a call",
        ),
    ],
)
def test_reorder_violations(moves: list[tuple[int, int]], violation: str | None):
    before, after = trace_after_moving(moves)
    assert compare_runs(before.run, after.run) == [] or violation is not None
    violations = reorder_violations(before, after)
    if violation is None:
        assert violations == []
    else:
        assert violations and violations[0].startswith(violation)


def test_reorder_violations_need_the_same_accesses():
    module = parse(ACCESSES)
    module.verify()
    inputs = random_inputs(find_kernel(module, "kernel"), 0)
    before = trace_kernel(module, "kernel", inputs)
    store = next(op for op in module.walk() if op.name == "pypto.tile.store")
    store.parent_block().insert_op_after(store.clone(), store)  # pyright: ignore[reportOptionalMemberAccess]
    after = trace_kernel(module, "kernel", inputs)
    assert reorder_violations(before, after) == [
        "pypto.tile.store (run 0) writes %x[0:8]: only after the pass"
    ]
    assert copy_violations(before, after) == [
        "access #2: pypto.tile.load %u (run 0) reads %x[4:12] before, "
        "pypto.tile.store (run 0) writes %x[0:8] after",
        "11 accesses before, 12 after",
    ]


def test_copy_violations_accept_the_same_accesses():
    inputs = random_inputs(find_kernel(parse(ACCESSES), "kernel"), 0)
    once, again = (trace_kernel(parse(ACCESSES), "kernel", inputs) for _ in range(2))
    assert copy_violations(once, again) == []
    # Other ops (parsed twice): the k-th run of an op is not the same access.
    assert reorder_violations(once, again)[0].endswith(": only before the pass")


# --------------------------------------------------------------------------- #
# The checks can fail: a pass that drops memory dependences is caught
# --------------------------------------------------------------------------- #


@pytest.fixture
def ssa_edges_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """
    Make `canonicalize-io-order` ignore memory dependences (a deliberate bug):
    every block goes through the dependence graph, which has no memory edge.
    """
    add_edge = DependenceGraph.add_edge

    def add_ssa_edge(
        graph: DependenceGraph, source: int, target: int, reason: Dependence
    ) -> None:
        if reason.kind is DependenceKind.SSA:
            add_edge(graph, source, target, reason)

    monkeypatch.setattr(DependenceGraph, "add_edge", add_ssa_edge)
    monkeypatch.setattr(canonicalize_io_order, "keeps_dependences", never_kept)


def never_kept(*_: object) -> bool:
    """A `keeps_dependences` that sends every block to the dependence graph."""
    return False


@pytest.mark.usefixtures("ssa_edges_only")
@pytest.mark.parametrize("max_stages", [1, 8])
def test_dropped_memory_dependences_are_caught(max_stages: int):
    """
    On a fixed sample, the broken pass reorders conflicting accesses in many
    kernels: the legality check flags them, and the interpreter sees
    different outputs in some of them, never without the legality check
    flagging the kernel too.
    """
    caught: Counter[str] = Counter()

    @settings(SAMPLE, max_examples=100)
    @given(kernels(max_stages=max_stages))
    def sample(kernel: GeneratedKernel):
        run = Run(kernel, 0)
        if max_stages > 1:
            run.apply(LOWER, copy_violations)
        outputs, violations = run.apply(CANONICALIZE, reorder_violations)
        caught["kernels"] += 1
        caught["illegal"] += bool(violations)
        caught["different outputs"] += bool(outputs)
        caught["different outputs, legal"] += bool(outputs) and not violations

    sample()
    assert caught["illegal"] >= caught["kernels"] // 10, caught
    assert caught["different outputs"] > 0, caught
    assert caught["different outputs, legal"] == 0, caught
