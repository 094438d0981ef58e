"""
The `skew-cross-core-pipeline` pass: generated cross-core loops
(`bench.kernels.cross_core`, PyPTO programs, the ones the parity test gives
PyPTO's pass too) run on the interpreter before and after it, bit for bit,
with the peer's tiles waiting in the channel it pops from; the tiles pushed
(left in the other channel, oldest first) must be the same, in the same
order.
"""

from __future__ import annotations

from contextlib import redirect_stderr
from io import StringIO

import pytest
from helpers import parse
from hypothesis import given
from hypothesis import strategies as st
from ir_integrity import apply_checked
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.utils.exceptions import PassFailedException

from bench.kernels.cross_core import CrossCoreKernel, cross_core_kernels
from passes import get_all_passes
from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass, skew_depth
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import parse_pypto
from pypto_dialect.interpreter import (
    compare_runs,
)
from pypto_dialect.numbers import INDEX_MAX
from pypto_dialect.pipeline import PipelineOp

TILE = "!pypto.tile<4x8xf32, vec>"
TENSOR = "!pypto.tensor<64x8xf32>"
PRODUCER = CrossCoreKernel(
    "producer", 2, 0, 4, 1, 1, False, "none", False, False, True, False
)
"""A loop the pass skews: depth 2, trip 4."""


def skew(module: ModuleOp, *, dynamic: bool = False, group: bool = False) -> str:
    """Apply the pass with `explain` (checked); what it printed."""
    stderr = StringIO()
    with redirect_stderr(stderr):
        apply_checked(
            SkewCrossCorePipelinePass(dynamic=dynamic, group=group, explain=True),
            pypto_context(),
            module,
        )
    return stderr.getvalue()


def parse_kernel(kernel: CrossCoreKernel) -> ModuleOp:
    return parse_pypto(pypto_context(), kernel.text(), "kernel.py")


def skews(kernel: CrossCoreKernel, dynamic: bool, group: bool) -> bool:
    """Whether our pass skews `kernel` with these options (its page says when)."""
    if kernel.stages == 1 or kernel.role != "producer":
        return False  # a pop first: the peer produces
    if not (dynamic if kernel.dynamic else kernel.trip >= 2):
        return False
    if kernel.aliased or kernel.carried == "producer":
        return False  # the halves share `out`; the producer half reads `acc`
    return kernel.round_trips == 1 or (group and not kernel.answering)


@given(cross_core_kernels(), st.integers(0, 2**16), st.booleans(), st.booleans())
def test_results_and_fifo_order_kept(
    kernel: CrossCoreKernel, seed: int, dynamic: bool, group: bool
) -> None:
    before = kernel.run(parse_kernel(kernel), seed)
    module = parse_kernel(kernel)
    explained = skew(module, dynamic=dynamic, group=group)
    assert not any(isinstance(op, PipelineOp) for op in module.walk())
    after = kernel.run(module, seed)
    assert compare_runs(before, after) == []
    skewed = skews(kernel, dynamic, group)
    assert ("skewed" in explained) == skewed, explained
    assert ("together" in explained) == (skewed and kernel.round_trips > 1)


@pytest.mark.parametrize(
    ("asked", "trip", "step", "depth"),
    [
        (2, 4, 1, 2),
        (3, 6, 1, 3),
        (2, 3, 1, 1),
        (3, 8, 1, 2),
        (7, 12, 1, 6),
        (2, 2, 1, 1),
        (2, 4, INDEX_MAX // 2 + 1, 1),
    ],
)
def test_skew_depth(asked: int, trip: int, step: int, depth: int) -> None:
    assert skew_depth(asked, trip, step) == depth


def test_registered() -> None:
    assert get_all_passes()["skew-cross-core-pipeline"]() is SkewCrossCorePipelinePass


def test_non_cross_core_left_alone() -> None:
    module = parse(
        f"""
func.func @k(%x: {TENSOR}, %out: {TENSOR}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {{
    %t = pypto.tile.load %x[%i, %c0] : {TENSOR} -> {TILE}
    pypto.tile.store %t, %out[%i, %c0] : {TILE}, {TENSOR}
  }}
  func.return
}}
"""
    )
    explained = skew(module)
    assert sum(isinstance(op, PipelineOp) for op in module.walk()) == 1
    assert "left alone: no push and pop" in explained


def test_zero_step_fails() -> None:
    text = PRODUCER.text().replace("pl.pipeline(0, 4, 1,", "pl.pipeline(0, 4, 0,")
    module = parse_pypto(pypto_context(), text, "kernel.py")
    with pytest.raises(PassFailedException, match="the step must be positive, got 0"):
        skew(module)


def test_bound_beyond_index_fails() -> None:
    module = parse_kernel(PRODUCER)
    (pipeline,) = [op for op in module.walk() if isinstance(op, PipelineOp)]
    big = arith.ConstantOp(IntegerAttr(INDEX_MAX + 1, IndexType()))
    assert pipeline.parent is not None
    pipeline.parent.insert_op_before(big, pipeline)
    pipeline.operands[1] = big.result
    with pytest.raises(
        PassFailedException, match="the upper bound 9223372036854775808"
    ):
        skew(module)
