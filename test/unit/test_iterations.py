"""
The dependences of two consecutive iterations of a loop body found on the
body's own ops (`passes/analysis/iterations.py`, `timeline.dependence_edges`)
are those of the dependence graph of two copies of the body
(`timeline.copied_edges`, the construction they replace and their fallback,
here the oracle): on every loop of the examples and lit inputs, raw and
lowered, and of generated kernels, raw, lowered, and with their loads
rotated through the slots of declared allocations.
"""

from __future__ import annotations

from typing import cast

import pytest
from corpus import sound_inputs
from differential import CONTEXT, LOWER, SLOTS
from helpers import LOWERED_CORPUS
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.analysis.graph import schedulable_ops
from passes.analysis.iterations import Loop, iterations
from passes.analysis.summaries import OpSummaries
from passes.schedule.steps import copied_edges, dependence_edges
from pypto_dialect.checked import parse_module
from pypto_dialect.pipeline import PipelineOp

BUDGET = (
    settings(max_examples=40)
    if settings.get_current_profile_name() == "ci"
    else settings()
)


def _loops(module: ModuleOp) -> list[Loop]:
    return [op for op in module.walk() if isinstance(op, scf.ForOp | PipelineOp)]


def _shifted(loop: Loop) -> bool:
    """Whether the body's next iteration is found by shifting (no fallback)."""
    ops = schedulable_ops(loop.body.block)
    return iterations(ops, loop, OpSummaries()) is not None


def check_edges(module: ModuleOp) -> None:
    """Every loop's edges, and those of its body run once, as the copies give them."""
    for loop in _loops(module):
        ops = schedulable_ops(loop.body.block)
        assert set(dependence_edges(ops, loop)) == set(copied_edges(ops, loop))
        assert set(dependence_edges(ops, None)) == set(copied_edges(ops, None))


CORPUS = [
    *(
        pytest.param(module, id=name)
        for name, module in sound_inputs()
        if _loops(module)
    ),
    *LOWERED_CORPUS,
]
"""The examples and lit inputs with loops, raw and lowered."""


@pytest.mark.parametrize("module", CORPUS)
def test_edges_are_the_copies_on_the_corpus(module: ModuleOp):
    check_edges(module)


def test_the_corpus_is_mostly_shifted():
    """The fallback is the exception: nearly every loop of the corpus is shifted."""
    loops = [
        loop for param in CORPUS for loop in _loops(cast(ModuleOp, param.values[0]))
    ]
    shifted = sum(map(_shifted, loops))
    assert len(loops) >= 200
    assert shifted >= 0.95 * len(loops)


@pytest.mark.slow
@BUDGET
@given(kernels(bindings=True), st.sampled_from([(), (LOWER,), (SLOTS, LOWER)]))
def test_edges_are_the_copies_on_generated_kernels(
    kernel: GeneratedKernel, passes: tuple[ModulePass, ...]
):
    module = parse_module(CONTEXT, kernel.text)
    for pass_ in passes:
        pass_.apply(CONTEXT, module)
    check_edges(module)


KERNEL = """
func.func @k(%x: !pypto.tensor<1024xf32>, %y: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %pipe = pypto.alloc "pipe" slots 2 : !pypto.alloc<vec>
  %r = scf.for %i = %c0 to %c8 step %STEP iter_args(%off = %c0) -> (index) {
    %next = arith.muli %i, %c64 : index
    %back = arith.subi %next, %c64 : index
    %a = pypto.tile.load %x[%back] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %k = arith.remsi %i, %c2 : index
    %s = pypto.bind %a to %pipe[%k] : !pypto.tile<64xf32, vec>
    %e = pypto.tile.exp %s : !pypto.tile<64xf32, vec>
    pypto.tile.store %e, %x[%next] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
    %b = pypto.tile.load %y[%OFFSET] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %b, %y[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
    %step = arith.addi %off, %c64 : index
    scf.yield %step : index
  }
  func.return
}
"""
"""
A window written (`x[64 i]`) then read in the next iteration (`x[64 (i+1) -
64]` with step 1), a load rotated through 2 slots (the same slot in the next
iteration with step 2), and a load of `y` at an offset that is the induction
variable's or an iter_arg's (`%OFFSET`: the fallback).
"""


@pytest.mark.parametrize(
    ("offset", "step", "shifted"),
    [("%next", "%c1", True), ("%next", "%c2", True), ("%off", "%c1", False)],
)
def test_carried_windows_slots_and_iter_args(offset: str, step: str, shifted: bool):
    text = KERNEL.replace("%OFFSET", offset).replace("%STEP", step)
    module = parse_module(CONTEXT, text)
    (loop,) = _loops(module)
    ops = schedulable_ops(loop.body.block)
    assert _shifted(loop) is shifted
    edges = set(dependence_edges(ops, loop))
    assert edges == set(copied_edges(ops, loop))
    carried = {(e.source, e.target) for e in edges if e.carried}
    load, exp, store = 2, 5, 6
    # The window written, read one iteration later (with step 1).
    assert ((store, load) in carried) is (step == "%c1")
    # The slot's reader, before the next load into the same slot (with step 2).
    assert ((exp, load) in carried) is (step == "%c2")
