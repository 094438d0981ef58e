"""Comparing runs: bitwise, with a description of every difference."""

from __future__ import annotations

import numpy as np
from interpreter_helpers import BF16, F32

from pypto_dialect.interpreter import (
    KernelRun,
    bit_identical,
    compare_runs,
    describe_difference,
)


def test_compare_runs_is_bitwise() -> None:
    nan = np.array([np.nan, 0.0], F32)
    assert bit_identical(nan, nan.copy())
    assert not bit_identical(np.array([0.0], F32), np.array([-0.0], F32))
    assert not bit_identical(np.zeros(2, F32), np.zeros(2, np.float64))
    before = KernelRun({"out": np.array([1, 2, 3], F32)}, (np.array(5, np.int64),))
    after = KernelRun({"out": np.array([1, 2.5, 3.5], F32)}, (np.array(5, np.int64),))
    assert compare_runs(before, before) == []
    assert compare_runs(before, after) == [
        "out: 2 of 3 elements differ (first at [1]): 2.0 vs 2.5"
    ]
    assert describe_difference(np.array([0.1], F32), np.array([0.2], F32)) == (
        "1 of 1 elements differ (first at [0]): 0.1 vs 0.2"
    )
    assert (
        describe_difference(np.array(5), np.array(6))
        == "1 of 1 elements differ: 5 vs 6"
    )
    assert describe_difference(np.zeros(2, F32), np.zeros(3, BF16)) == "2xf32 vs 3xbf16"
    fewer = KernelRun({"out": np.array([1, 2, 3], F32)}, ())
    assert compare_runs(before, fewer) == ["result#0: only in the first run"]
