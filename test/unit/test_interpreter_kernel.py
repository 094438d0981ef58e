"""Running kernels: the examples, inputs, argument and entry checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from interpreter_helpers import BF16, F32, assert_bits, parse
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.interpreter import (
    RANDOM_INDEX_RANGE,
    RANDOM_INT_RANGE,
    KernelArg,
    KernelRun,
    bit_identical,
    find_kernel,
    random_inputs,
    run_kernel,
)

EXAMPLES = Path(__file__).parents[2] / "examples"


# --------------------------------------------------------------------------- #
# The examples, against independent numpy computations
# --------------------------------------------------------------------------- #


def run_example(name: str, seed: int = 0) -> tuple[dict[str, KernelArg], KernelRun]:
    module = parse((EXAMPLES / f"{name}.mlir").read_text())
    inputs = random_inputs(find_kernel(module, name), seed)
    return inputs, run_kernel(module, name, inputs)


def test_example_add_one() -> None:
    inputs, outcome = run_example("add_one")
    x = inputs["x"]
    assert isinstance(x, np.ndarray)
    assert_bits(outcome.tensors["out"], x + np.float32(1))
    assert_bits(outcome.tensors["x"], x)


def test_example_row_softmax() -> None:
    inputs, outcome = run_example("row_softmax")
    x = np.asarray(inputs["x"], np.float64)
    e = np.exp(x - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(
        outcome.tensors["out"], e / e.sum(axis=1, keepdims=True), rtol=1e-6
    )


def test_example_matmul() -> None:
    inputs, outcome = run_example("matmul_k_loop")
    a, b = np.asarray(inputs["a"], np.float64), np.asarray(inputs["b"], np.float64)
    np.testing.assert_allclose(outcome.tensors["c"], a @ b, rtol=1e-5, atol=1e-4)


# --------------------------------------------------------------------------- #
# The Python API
# --------------------------------------------------------------------------- #


def test_random_inputs_are_deterministic_and_typed() -> None:
    module = parse(
        "func.func @k(%x: !pypto.tensor<64xbf16>, %n: index, %i: !pypto.tile<32xi8, vec>, %f: f32) {\n"
        "  func.return\n}"
    )
    kernel = find_kernel(module, "k")
    first, again = random_inputs(kernel, 7), random_inputs(kernel, 7)
    other = random_inputs(kernel, 8)
    for name in ("x", "i", "f"):
        assert bit_identical(np.asarray(first[name]), np.asarray(again[name]))
    assert not bit_identical(np.asarray(first["x"]), np.asarray(other["x"]))
    x, i = np.asarray(first["x"]), np.asarray(first["i"])
    assert x.dtype == BF16 and x.shape == (64,)
    assert (
        i.dtype == np.int8
        and RANDOM_INT_RANGE[0] <= i.min() <= i.max() <= RANDOM_INT_RANGE[1]
    )
    assert first["n"] in range(RANDOM_INDEX_RANGE[0], RANDOM_INDEX_RANGE[1] + 1)
    assert random_inputs(kernel, 7, {"n": 42})["n"] == 42
    with pytest.raises(InterpretationError, match="no parameter named m"):
        random_inputs(kernel, 7, {"m": 1})


def test_run_kernel_checks_its_arguments() -> None:
    module = parse("func.func @k(%x: !pypto.tensor<4xf32>, %n: i8) {\n  func.return\n}")
    good: dict[str, KernelArg] = {"x": np.zeros(4, F32), "n": 3}
    run_kernel(module, "k", good)
    cases: list[tuple[dict[str, KernelArg], str]] = [
        ({"x": np.zeros(4, F32)}, r"no value for n"),
        ({**good, "y": 1}, r"no parameter named y"),
        (
            {**good, "x": np.zeros(4)},
            r"must be a \(4,\) array of float32 .* got a \(4,\) array of float64",
        ),
        ({**good, "x": np.zeros(5, F32)}, r"got a \(5,\) array"),
        ({**good, "x": 1.0}, r"argument %x must be an array"),
        ({**good, "n": 1000}, r"argument %n cannot be 1000"),
        ({**good, "n": 1.5}, r"argument %n cannot be 1.5"),
    ]
    for args, message in cases:
        with pytest.raises(InterpretationError, match=message):
            run_kernel(module, "k", args)


def test_raw_bits_from_an_npz_are_read_as_the_element_type() -> None:
    module = parse(
        "func.func @k(%x: !pypto.tensor<2xbf16>) -> !pypto.tile<2xbf16, vec> {\n"
        "  %c0 = arith.constant 0 : index\n"
        "  %t = pypto.tile.load %x[%c0] : !pypto.tensor<2xbf16> -> !pypto.tile<2xbf16, vec>\n"
        "  func.return %t : !pypto.tile<2xbf16, vec>\n}"
    )
    x = np.array([1.5, -2], BF16)
    (loaded,) = run_kernel(module, "k", {"x": x.view("V2")}).results
    assert_bits(loaded, x)


def test_entry_errors() -> None:
    module = parse("func.func private @ext()\nfunc.func @k() {\n  func.return\n}")
    with pytest.raises(
        InterpretationError, match=r"no function @nope in the module \(functions: @k\)"
    ):
        run_kernel(module, "nope", {})
    with pytest.raises(InterpretationError, match="@ext is a declaration"):
        run_kernel(module, "ext", {})


HUGE_CALLEE = """
func.func @kernel(%x: !pypto.tensor<1024xf32>) {
  func.call @helper() : () -> ()
  func.return
}
func.func @helper() {
  %s = arith.constant 0.0 : f32
  %t = pypto.tile.full %s : f32 -> !pypto.tile<2048x2048xf32, vec>
  func.return
}
func.func @unrelated(%y: !pypto.tensor<8192x8192xf32>) {
  func.return
}
"""


def test_types_larger_than_max_elements_are_refused_before_allocation() -> None:
    module = parse(HUGE_CALLEE)
    kernel = find_kernel(module, "kernel")
    # Only the kernel and what it calls count: @unrelated is never run.
    inputs = random_inputs(kernel, 0, max_elements=2048 * 2048)
    run_kernel(module, "kernel", inputs, max_elements=2048 * 2048)
    with pytest.raises(
        InterpretationError,
        match=r"pypto.tile.full: result %t of type "
        r"!pypto.tile<2048x2048xf32, vec> has 4,194,304 elements, more "
        r"than a run may hold \(4,194,303\)",
    ):
        run_kernel(module, "kernel", inputs, max_elements=2048 * 2048 - 1)
    with pytest.raises(InterpretationError, match=r"func.func: block argument %x"):
        random_inputs(kernel, 0, max_elements=1023)
