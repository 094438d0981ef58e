"""
Property tests of the schedule model on generated kernels
(`bench.kernels.strategies.kernels()`), with the default cost table:

* the modelled time of every pipeline loop, before the passes, after
  `lower-pipeline-loops` and after both passes, never beats its resource
  bound (the busiest engine);
* `canonicalize-io-order` never makes the modelled time of a lowered loop
  worse than `lower-pipeline-loops` alone. With the default `order=category`
  this fails: it is a finding about that order, not about the test
  (docs/report.md, "What the model says about the passes"), so it is marked
  xfail, strictly, with two of the failing kernels as explicit examples;
  `test_finding_counts` gives the counts of that page. With
  `order=modelled` it holds on the drawn kernels, and that order is never
  worse than `category` either; on the merged model it fails where a loop
  body holds `scf.if` blocks (a second strict xfail, with kernel 6 of the
  `bench.orders` corpus).
"""

from __future__ import annotations

import dataclasses
import os
import statistics
from random import Random

import pytest
from helpers import READ_HOISTED
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.analysis import DependenceGraph
from passes.mechanisms.scheduling import priority_order
from passes.orders.body_model import BodyModel
from passes.schedule.engines import default_costs
from passes.schedule.report import LoopReport, pass_pipeline, run_report
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp

CTX = pypto_context()
MODEL = default_costs()
LOWER = pass_pipeline("lower-pipeline-loops")
BOTH = pass_pipeline("lower-pipeline-loops,canonicalize-io-order")
MODELLED = pass_pipeline("lower-pipeline-loops,canonicalize-io-order{order=modelled}")
TOLERANCE = 1e-9
BUDGET = (
    settings(max_examples=40)
    if settings.get_current_profile_name() == "ci"
    else settings()
)
"""40 kernels in CI (each is simulated five times), else the profile's count."""


def reports(kernel: GeneratedKernel) -> tuple[list[LoopReport], list[LoopReport]]:
    """The reports of the kernel's loops after `lower-pipeline-loops`, and after both passes."""
    module = parse_module(CTX, kernel.text)
    return run_report(CTX, module, MODEL, LOWER), run_report(CTX, module, MODEL, BOTH)


@pytest.mark.slow
@BUDGET
@given(kernels())
def test_modelled_time_never_beats_the_bound(kernel: GeneratedKernel):
    lowered, reordered = reports(kernel)
    for report in (*lowered, *reordered):
        for figures in (report.before, report.after):
            if figures is not None:
                assert figures.time >= figures.bound * (1 - TOLERANCE), report.name
                assert 0 < figures.timeline.efficiency <= 1 + TOLERANCE


LOADS_FIRST = GeneratedKernel(
    # Eight stages, queue depth 2: with all eight loads first, the dispatcher
    # stalls on the load queue before it reaches the first add.
    """
func.func @kernel(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 8 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
""",
    {},
)


@pytest.mark.xfail(
    strict=True,
    reason="finding: canonicalize-io-order orders by op category, not per "
    "engine; in the model, a `tile.read` (VECTOR) or `extract` (MTE1) hoisted "
    "with the loads makes an in-order compute queue wait for a later load, "
    "and all F loads first overfill a load queue shallower than F - 1 "
    "(docs/report.md)",
)
@settings(BUDGET, phases=[Phase.explicit, Phase.generate])
@example(READ_HOISTED)
@example(LOADS_FIRST)
@given(kernels())
def test_reordering_never_slows_the_lowered_loop(kernel: GeneratedKernel):
    lowered, reordered = reports(kernel)
    for alone, both in zip(lowered, reordered, strict=True):
        if alone.after is not None and both.after is not None:
            assert both.after.time <= alone.after.time * (1 + TOLERANCE), alone.name


@pytest.mark.slow
@settings(BUDGET, phases=[Phase.explicit, Phase.generate])
@example(READ_HOISTED)
@example(LOADS_FIRST)
@given(kernels())
def test_modelled_order_never_slows_the_lowered_loop(kernel: GeneratedKernel):
    module = parse_module(CTX, kernel.text)
    lowered, category = reports(kernel)
    modelled = run_report(CTX, module, MODEL, MODELLED)
    for alone, by_category, chosen in zip(lowered, category, modelled, strict=True):
        if chosen.after is None:
            continue
        assert alone.after is not None and by_category.after is not None
        limit = min(alone.after.time, by_category.after.time)
        assert chosen.after.time <= limit * (1 + TOLERANCE), alone.name


@pytest.mark.slow
@BUDGET
@given(kernels(), st.randoms(use_true_random=False))
def test_no_order_beats_the_body_bound(kernel: GeneratedKernel, random: Random):
    """
    `BodyModel.bound` (where `order=modelled` stops searching) is what no
    legal order of a lowered body beats: the input, and random priority
    orders on its dependence graph.
    """
    module = parse_module(CTX, kernel.text)
    LOWER.apply(CTX, module)
    for loop in [op for op in module.walk() if isinstance(op, PipelineOp)]:
        body = BodyModel.prepare(loop, MODEL)
        graph = DependenceGraph.build(loop.body.block)
        size = len(body.ops)
        orders = [list(range(size))]
        for _ in range(3):
            keys = [random.random() for _ in range(size)]
            orders.append(priority_order(graph, keys))
        for order in orders:
            time = body.simulate(order).time_per_iteration
            assert time >= body.bound * (1 - TOLERANCE), (order, time, body.bound)


NESTED_BRANCHES = GeneratedKernel(
    # Kernel 6 of `bench.orders`' corpus (seed 27). Its first loop's body holds
    # `scf.if` blocks, which are no loop body: every order gives them
    # `category` before the body is searched, so the search's input is not the
    # lowering's order.
    """
func.func @kernel(%x: !pypto.tensor<1024x8xf32>, %y: !pypto.tensor<1024x8xf32>, %z: !pypto.tensor<1024x8xf32>, %a: !pypto.tensor<1024x8xbf16>, %b: !pypto.tensor<8x8xbf16>, %c: !pypto.tensor<1024x8xf32>, %n0: index, %n1: index, %n2: index) -> (!pypto.tile<4x8xf32, acc>) {
  %c1 = arith.constant 2 : index
  %c5 = arith.constant 0 : index
  %c11 = arith.constant 6 : index
  %c14 = arith.constant 3 : index
  %c16 = arith.constant 1 : index
  %f19 = arith.constant -0.75 : f32
  %zf20 = arith.constant 0.0 : f32
  %c29 = arith.constant 4 : index
  %c35 = arith.constant 8 : index
  %c43 = arith.constant 5 : index
  %f65 = arith.constant 3.0 : f32
  %c67 = arith.constant 9 : index
  pypto.pipeline %i2 = %n0 to %n1 step %c1 stages 4 {
    %s3 = arith.muli %i2, %c1 : index
    %o4 = arith.addi %s3, %c1 : index
    %am6 = pypto.tile.load %a[%o4, %c5] : !pypto.tensor<1024x8xbf16> -> !pypto.tile<4x8xbf16, mat>
    %bm7 = pypto.tile.load %b[%c5, %c5] : !pypto.tensor<8x8xbf16> -> !pypto.tile<8x8xbf16, mat>
    %al8 = pypto.tile.move %am6 : !pypto.tile<4x8xbf16, mat> -> !pypto.tile<4x8xbf16, left>
    %br9 = pypto.tile.extract %bm7[%c5, %c5] : !pypto.tile<8x8xbf16, mat> -> !pypto.tile<8x8xbf16, right>
    %p10 = pypto.tile.matmul %al8, %br9 : !pypto.tile<4x8xbf16, left>, !pypto.tile<8x8xbf16, right> -> !pypto.tile<4x8xf32, acc>
    %s12 = arith.muli %i2, %c1 : index
    %o13 = arith.addi %s12, %c11 : index
    pypto.tile.store %p10, %c[%o13, %c5] : !pypto.tile<4x8xf32, acc>, !pypto.tensor<1024x8xf32>
    %ub15 = arith.addi %i2, %c14 : index
    %acc21 = pypto.tile.full %zf20 : f32 -> !pypto.tile<4x8xf32, acc>
    %res24, %res25, %res26 = pypto.pipeline %i23 = %i2 to %ub15 step %c1 stages 2 iter_args(%ia17 = %c16, %fa18 = %f19, %ma22 = %acc21) -> (index, f32, !pypto.tile<4x8xf32, acc>) {
      %cond27 = arith.cmpi slt, %i23, %c1 : index
      %sel28 = scf.if %cond27 -> (!pypto.tile<4x8xf32, vec>) {
        %s30 = arith.muli %i23, %c29 : index
        %t31 = pypto.tile.load %x[%s30, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
        %u32 = pypto.tile.adds %t31, %fa18 : !pypto.tile<4x8xf32, vec>, f32
        %s33 = arith.muli %i23, %c29 : index
        %o34 = arith.addi %s33, %c1 : index
        pypto.tile.store %u32, %x[%o34, %c5] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<1024x8xf32>
        %s36 = arith.muli %i23, %c35 : index
        %o37 = arith.addi %s36, %c35 : index
        %t38 = pypto.tile.load %z[%o37, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
        pypto.tile.tpush_to_aic %t38 : !pypto.tile<4x8xf32, vec>
        scf.yield %t38 : !pypto.tile<4x8xf32, vec>
      } else {
        %t39 = pypto.tile.load %x[%c14, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
        scf.yield %t39 : !pypto.tile<4x8xf32, vec>
      }
      %iv40 = arith.addi %ia17, %i23 : index
      %e41 = pypto.tile.read %sel28[%c14, %c1] : !pypto.tile<4x8xf32, vec>
      %fv42 = arith.addf %fa18, %e41 : f32
      %s44 = arith.muli %i23, %c35 : index
      %o45 = arith.addi %s44, %c43 : index
      %am46 = pypto.tile.load %a[%o45, %c5] : !pypto.tensor<1024x8xbf16> -> !pypto.tile<4x8xbf16, mat>
      %bm47 = pypto.tile.load %b[%c5, %c5] : !pypto.tensor<8x8xbf16> -> !pypto.tile<8x8xbf16, mat>
      %al48 = pypto.tile.extract %am46[%c5, %c5] : !pypto.tile<4x8xbf16, mat> -> !pypto.tile<4x8xbf16, left>
      %br49 = pypto.tile.extract %bm47[%c5, %c5] : !pypto.tile<8x8xbf16, mat> -> !pypto.tile<8x8xbf16, right>
      %p50 = pypto.tile.matmul_acc %ma22, %al48, %br49 : !pypto.tile<4x8xf32, acc>, !pypto.tile<4x8xbf16, left>, !pypto.tile<8x8xbf16, right>
      pypto.yield %iv40, %fv42, %p50 : index, f32, !pypto.tile<4x8xf32, acc>
    }
    %o51 = arith.addi %i2, %c14 : index
    pypto.tile.store %res26, %c[%o51, %c5] : !pypto.tile<4x8xf32, acc>, !pypto.tensor<1024x8xf32>
    %s52 = arith.muli %i2, %c35 : index
    %o53 = arith.addi %s52, %c11 : index
    %t54 = pypto.tile.load %x[%o53, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
    %u55 = pypto.tile.adds %t54, %res25 : !pypto.tile<4x8xf32, vec>, f32
    %s56 = arith.muli %i2, %c35 : index
    %o57 = arith.addi %s56, %c35 : index
    pypto.tile.store %u55, %x[%o57, %c5] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<1024x8xf32>
    %t58 = pypto.tile.load %x[%o57, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
  }
  %acc59 = pypto.tile.full %zf20 : f32 -> !pypto.tile<4x8xf32, acc>
  %res62 = pypto.pipeline %i61 = %c5 to %n2 step %c14 stages 8 overlap_stores = false iter_args(%ma60 = %acc59) -> (!pypto.tile<4x8xf32, acc>) {
    %o63 = arith.addi %i61, %c35 : index
    %t64 = pypto.tile.load %x[%o63, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
    %u66 = pypto.tile.adds %t64, %f65 : !pypto.tile<4x8xf32, vec>, f32
    %o68 = arith.addi %i61, %c67 : index
    pypto.tile.store %u66, %x[%o68, %c5] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<1024x8xf32>
    %t69 = pypto.tile.load %x[%o68, %c5] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
    %o70 = arith.addi %i61, %c14 : index
    pypto.tile.store %t69, %z[%o70, %c5] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<1024x8xf32>
    %am71 = pypto.tile.load %a[%c1, %c5] : !pypto.tensor<1024x8xbf16> -> !pypto.tile<4x8xbf16, mat>
    %bm72 = pypto.tile.load %b[%c5, %c5] : !pypto.tensor<8x8xbf16> -> !pypto.tile<8x8xbf16, mat>
    %al73 = pypto.tile.extract %am71[%c5, %c5] : !pypto.tile<4x8xbf16, mat> -> !pypto.tile<4x8xbf16, left>
    %br74 = pypto.tile.extract %bm72[%c5, %c5] : !pypto.tile<8x8xbf16, mat> -> !pypto.tile<8x8xbf16, right>
    %p75 = pypto.tile.matmul_acc %ma60, %al73, %br74 : !pypto.tile<4x8xf32, acc>, !pypto.tile<4x8xbf16, left>, !pypto.tile<8x8xbf16, right>
    pypto.yield %p75 : !pypto.tile<4x8xf32, acc>
  }
  pypto.tile.store %res62, %c[%c16, %c5] : !pypto.tile<4x8xf32, acc>, !pypto.tensor<1024x8xf32>
  func.return %res62 : !pypto.tile<4x8xf32, acc>
}
""",
    {},
)


@pytest.mark.slow
def test_modelled_order_on_nested_branches():
    """
    The property on a body with `scf.if` blocks, which every order gives
    `category` before the body is searched. It failed (1949 cycles against
    1938 lowered only) while an op with regions listed its units in the
    order of its nested ops, which made the flags around it depend on them.
    """
    inner = test_modelled_order_never_slows_the_lowered_loop.hypothesis.inner_test  # type: ignore[attr-defined]
    inner(NESTED_BRANCHES)


FINDING_KERNELS = int(os.environ.get("PYPTO_FINDING_KERNELS", "5"))
"""Kernels the finding counts run on: 300 for the figures of docs/report.md."""
DEEP = dataclasses.replace(MODEL, queue_depth=1 << 20)


@pytest.mark.slow
def test_finding_counts():
    """
    The counts of docs/report.md ("What the model says about the passes"),
    printed with `-s`: `PYPTO_FINDING_KERNELS=300 pytest
    test/unit/test_report_properties.py -k finding -s`. The same kernels
    every run (derandomized); some lowered loop is slower reordered.
    """
    counts = {"kernels": 0, "loops": 0, "slower": 0, "same": 0, "faster": 0}
    counts |= {"slower unbounded": 0, "whole loops": 0, "whole slower": 0}
    ratios: list[float] = []

    @settings(
        max_examples=FINDING_KERNELS,
        derandomize=True,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(kernels())
    def count(kernel: GeneratedKernel) -> None:
        counts["kernels"] += 1
        module = parse_module(CTX, kernel.text)
        unbounded = zip(
            run_report(CTX, module, DEEP, LOWER),
            run_report(CTX, module, DEEP, BOTH),
            strict=True,
        )
        for (alone, both), (deep_alone, deep_both) in zip(
            zip(*reports(kernel), strict=True), unbounded, strict=True
        ):
            if alone.after is None or both.after is None:
                continue
            counts["loops"] += 1
            ratio = both.after.time / alone.after.time
            kind = "slower" if ratio > 1 + TOLERANCE else "same"
            kind = "faster" if ratio < 1 - TOLERANCE else kind
            counts[kind] += 1
            if kind == "slower":
                ratios.append(ratio)
                assert deep_alone.after is not None and deep_both.after is not None
                counts["slower unbounded"] += (
                    deep_both.after.time > deep_alone.after.time * (1 + TOLERANCE)
                )
            whole = (alone.after.whole.time, both.after.whole.time)
            if whole[0] is not None and whole[1] is not None:
                counts["whole loops"] += 1
                counts["whole slower"] += whole[1] > whole[0] * (1 + TOLERANCE)

    count()
    print(counts, "slower: median", statistics.median(ratios), "worst", max(ratios))
    assert counts["slower"] + counts["same"] + counts["faster"] == counts["loops"]
    assert counts["slower"] > 0
