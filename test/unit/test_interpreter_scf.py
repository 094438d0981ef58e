"""The interpreter's control flow: `scf.for`, `scf.if` and `pypto.pipeline`."""

from __future__ import annotations

import numpy as np
import pytest
from interpreter_helpers import F32, assert_bits, normal, parse, result, run
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.interpreter import KernelArg, compare_runs, run_kernel


def test_scf_for_with_iter_args() -> None:
    kernel = """
func.func @k(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %sum = scf.for %i = %c0 to %n step %c2 iter_args(%s = %c0) -> (index) {
    %next = arith.addi %s, %i : index
    scf.yield %next : index
  }
  func.return %sum : index
}
"""
    assert result(kernel, n=9)[()] == 0 + 2 + 4 + 6 + 8
    assert result(kernel, n=0)[()] == 0


IF_KERNEL = """
func.func @k(%a: index, %b: index) -> f32 {
  %less = arith.cmpi slt, %a, %b : index
  %r = scf.if %less -> (f32) {
    %one = arith.constant 1.0 : f32
    scf.yield %one : f32
  } else {
    %two = arith.constant 2.0 : f32
    scf.yield %two : f32
  }
  func.return %r : f32
}
"""


@pytest.mark.parametrize(
    ("a", "b", "expected"), [(1, 2, 1.0), (2, 1, 2.0), (3, 3, 2.0)]
)
def test_scf_if_takes_the_right_branch(a: int, b: int, expected: float) -> None:
    assert result(IF_KERNEL, a=a, b=b)[()] == expected


PIPELINE = """
func.func @k(%x: !pypto.tensor<64x8xf32>, %out: !pypto.tensor<64x8xf32>, %lb: index, %ub: index) -> !pypto.tile<4x8xf32, vec> {{
  %c0 = arith.constant 0 : index
  %step = arith.constant {step} : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<4x8xf32, vec>
  %acc = {loop} %i = %lb to %ub step %step {stages}iter_args(%a = %init) -> (!pypto.tile<4x8xf32, vec>) {{
    %c4 = arith.constant 4 : index
    %row = arith.muli %i, %c4 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<4x8xf32, vec>
    %next = pypto.tile.add %a, %e : !pypto.tile<4x8xf32, vec>
    pypto.tile.store %next, %out[%row, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<64x8xf32>
    {terminator} %next : !pypto.tile<4x8xf32, vec>
  }}
  func.return %acc : !pypto.tile<4x8xf32, vec>
}}
"""


def pipeline_kernel(stages: int | None, step: int) -> str:
    """The loop of `PIPELINE` as an `scf.for` (no `stages`) or a `pypto.pipeline`."""
    if stages is None:
        return PIPELINE.format(
            loop="scf.for", stages="", terminator="scf.yield", step=step
        )
    return PIPELINE.format(
        loop="pypto.pipeline",
        stages=f"stages {stages} ",
        terminator="pypto.yield",
        step=step,
    )


def pipeline_inputs(lb: int, ub: int) -> dict[str, KernelArg]:
    return {
        "x": normal((64, 8), F32),
        "out": np.zeros((64, 8), F32),
        "lb": lb,
        "ub": ub,
    }


@pytest.mark.parametrize(
    ("lb", "ub", "step"), [(0, 16, 1), (1, 14, 3), (5, 5, 1), (9, 2, 2)]
)
def test_pipeline_stages_do_not_change_results(lb: int, ub: int, step: int) -> None:
    inputs = pipeline_inputs(lb, ub)
    reference = run_kernel(parse(pipeline_kernel(None, step)), "k", inputs)
    for stages in (1, 2, 4, 8):
        outcome = run_kernel(parse(pipeline_kernel(stages, step)), "k", inputs)
        assert compare_runs(reference, outcome) == []


def test_pipeline_computes_the_loop() -> None:
    inputs = pipeline_inputs(1, 14)
    outcome = run_kernel(parse(pipeline_kernel(4, 3)), "k", inputs)
    x = inputs["x"]
    assert isinstance(x, np.ndarray)
    expected_out = np.zeros((64, 8), F32)
    total = np.zeros((4, 8), F32)
    for i in range(1, 14, 3):
        total = total + np.exp(x[4 * i : 4 * i + 4])
        expected_out[4 * i : 4 * i + 4] = total
    assert_bits(outcome.tensors["out"], expected_out)
    assert_bits(outcome.results[0], total)


@pytest.mark.parametrize("step", [0, -1])
@pytest.mark.parametrize("loop", ["scf.for", "pypto.pipeline"])
def test_non_positive_step_is_an_error(loop: str, step: int) -> None:
    stages = "stages 2 " if loop == "pypto.pipeline" else ""
    kernel = f"""
func.func @k(%step: index) {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  {loop} %i = %c0 to %c4 step %step {stages}{{
  }}
  func.return
}}
"""
    message = f"{loop}: the step must be positive at run time, got {step}"
    with pytest.raises(InterpretationError, match=message):
        run(kernel, step=step)


def test_tensors_keep_their_identity_through_iter_args_and_ifs() -> None:
    kernel = """
func.func @k(%t: !pypto.tensor<4xf32>, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %same = scf.if %flag -> (!pypto.tensor<4xf32>) {
    scf.yield %t : !pypto.tensor<4xf32>
  } else {
    scf.yield %t : !pypto.tensor<4xf32>
  }
  %last = scf.for %i = %c0 to %c2 step %c1 iter_args(%u = %same) -> (!pypto.tensor<4xf32>) {
    %one = arith.constant 1.0 : f32
    %v = pypto.tile.full %one : f32 -> !pypto.tile<2xf32, vec>
    %off = arith.muli %i, %c2 : index
    pypto.tile.store %v, %u[%off] : !pypto.tile<2xf32, vec>, !pypto.tensor<4xf32>
    scf.yield %u : !pypto.tensor<4xf32>
  }
  func.return
}
"""
    outcome = run(kernel, t=np.zeros(4, F32), flag=True)
    assert_bits(outcome.tensors["t"], np.ones(4, F32))
