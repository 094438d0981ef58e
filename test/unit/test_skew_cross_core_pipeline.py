"""
The `skew-cross-core-pipeline` pass: generated cross-core loops run on the
interpreter before and after it, bit for bit, with the peer's tiles waiting
in the channel it pops from; the tiles pushed (left in the other channel,
oldest first) must be the same, in the same order.
"""

from __future__ import annotations

from contextlib import redirect_stderr
from dataclasses import dataclass
from io import StringIO

import numpy as np
import pytest
from helpers import parse
from hypothesis import given
from hypothesis import strategies as st
from ir_integrity import apply_checked
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp
from xdsl.utils.exceptions import PassFailedException

from passes import get_all_passes
from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass, skew_depth
from pypto_dialect.context import pypto_context
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter import (
    KernelRun,
    compare_runs,
    find_kernel,
    random_inputs,
    run_kernel,
)
from pypto_dialect.numbers import INDEX_MAX
from pypto_dialect.pipeline import PipelineOp

TILE = "!pypto.tile<4x8xf32, vec>"
TENSOR = "!pypto.tensor<64x8xf32>"


@dataclass(frozen=True)
class CrossCoreLoop:
    """A generated cross-core loop: which role, how many round trips, its bounds."""

    stages: int
    lb: int
    trip: int
    step: int
    round_trips: int
    consumer: bool
    """The pop comes first and feeds the body (the vector side of a pair)."""
    carried: bool
    """An accumulator threads through the loop (iter_args)."""
    shared_address: bool
    """The consumer reads an address the producer computes."""
    dynamic: bool
    """The upper bound is an argument."""
    cube: bool
    """Pushes to the vector core (else to the cube core)."""

    @property
    def ub(self) -> int:
        return self.lb + self.trip * self.step

    def push(self, value: str) -> str:
        op = "tpush_to_aiv" if self.cube else "tpush_to_aic"
        return f"pypto.tile.{op} {value} : {TILE}"

    def pop(self, result: str) -> str:
        op = "tpop_from_aiv" if self.cube else "tpop_from_aic"
        return f"%{result} = pypto.tile.{op} : {TILE}"

    @property
    def popped_channel(self) -> ChannelDirection:
        return ChannelDirection.AIV_TO_AIC if self.cube else ChannelDirection.AIC_TO_AIV

    def text(self) -> str:
        """The kernel `@k(%x, %out, %acc0, %n) -> tile`."""
        body: list[str] = ["%row = arith.muli %i, %c4 : index"]
        last = "%acc"
        for trip in range(self.round_trips):
            if self.consumer:
                body += [
                    self.pop(f"e{trip}"),
                    f"%s{trip} = pypto.tile.add %e{trip}, %e{trip} : {TILE}",
                    self.push(f"%s{trip}"),
                ]
            else:
                body += [
                    f"%l{trip} = pypto.tile.load %x[%row, %c0] : {TENSOR} -> {TILE}",
                    self.push(f"%l{trip}"),
                    self.pop(f"e{trip}"),
                ]
        reads = "%row" if self.shared_address else "%row2"
        if not self.shared_address:
            body.append("%row2 = arith.muli %i, %c4 : index")
        body.append(f"%t = pypto.tile.add %e0, %e{self.round_trips - 1} : {TILE}")
        body.append(f"pypto.tile.store %t, %out[{reads}, %c0] : {TILE}, {TENSOR}")
        ub = "%n" if self.dynamic else f"%c{self.ub}"
        header = f"%c{self.lb} to {ub} step %c{self.step} stages {self.stages}"
        if self.carried:
            body.append(f"%acc2 = pypto.tile.add {last}, %t : {TILE}")
            body.append(f"pypto.yield %acc2 : {TILE}")
            loop = f"%r = pypto.pipeline %i = {header} iter_args(%acc = %acc0) -> ({TILE}) {{"
            result = "%r"
        else:
            loop = f"pypto.pipeline %i = {header} {{"
            result = "%acc0"
        constants = sorted({0, 4, self.lb, self.ub, self.step})
        lines = [f"  %c{c} = arith.constant {c} : index" for c in constants]
        inner = "\n".join(f"    {line}" for line in body)
        return f"""
func.func @k(%x: {TENSOR}, %out: {TENSOR}, %acc0: {TILE}, %n: index) -> {TILE} {{
{chr(10).join(lines)}
  {loop}
{inner}
  }}
  func.return {result} : {TILE}
}}
"""


def loops() -> st.SearchStrategy[CrossCoreLoop]:
    return st.builds(
        CrossCoreLoop,
        stages=st.integers(1, 8),
        lb=st.integers(0, 3),
        trip=st.integers(0, 9),
        step=st.integers(1, 2),
        round_trips=st.integers(1, 2),
        consumer=st.booleans(),
        carried=st.booleans(),
        shared_address=st.booleans(),
        dynamic=st.booleans(),
        cube=st.booleans(),
    ).filter(lambda loop: loop.ub <= 16)


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


def run(loop: CrossCoreLoop, module: ModuleOp, seed: int) -> KernelRun:
    kernel = find_kernel(module, "k")
    args = random_inputs(kernel, seed, {"n": loop.ub})
    rng = np.random.default_rng(seed)
    peer = [
        rng.standard_normal((4, 8)).astype(np.float32)
        for _ in range(loop.trip * loop.round_trips)
    ]
    return run_kernel(module, "k", args, channels={loop.popped_channel: peer})


@given(loops(), st.integers(0, 2**16), st.booleans(), st.booleans())
def test_results_and_fifo_order_kept(
    loop: CrossCoreLoop, seed: int, dynamic: bool, group: bool
) -> None:
    before = run(loop, parse(loop.text()), seed)
    module = parse(loop.text())
    explained = skew(module, dynamic=dynamic, group=group)
    assert not any(isinstance(op, PipelineOp) for op in module.walk())
    after = run(loop, module, seed)
    assert compare_runs(before, after) == []
    skewable = (
        loop.stages > 1
        and (dynamic if loop.dynamic else loop.trip >= 2)
        and (loop.round_trips == 1 or group)
        and not loop.consumer
    )
    assert ("skewed" in explained) == skewable, explained
    assert ("together" in explained) == (skewable and loop.round_trips > 1)


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
    loop = CrossCoreLoop(2, 0, 4, 1, 1, False, False, False, False, True)
    module = parse(loop.text().replace("step %c1", "step %c0"))
    with pytest.raises(PassFailedException, match="the step must be positive, got 0"):
        skew(module)


def test_bound_beyond_index_fails() -> None:
    loop = CrossCoreLoop(2, 0, 4, 1, 1, False, False, False, False, True)
    module = parse(loop.text())
    (pipeline,) = [op for op in module.walk() if isinstance(op, PipelineOp)]
    big = arith.ConstantOp(IntegerAttr(INDEX_MAX + 1, IndexType()))
    assert pipeline.parent is not None
    pipeline.parent.insert_op_before(big, pipeline)
    pipeline.operands[1] = big.result
    with pytest.raises(
        PassFailedException, match="the upper bound 9223372036854775808"
    ):
        skew(module)
