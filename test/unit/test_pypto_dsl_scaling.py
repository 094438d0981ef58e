"""
The frontend's cost grows linearly with the program: the Python calls
`parse_pypto` makes, counted (not timed), per statement and per method, at
two sizes eight times apart in one run.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType

from pypto_dsl_helpers import CTX, program

from pypto_dialect.dsl import parse_pypto

SMALL, LARGE = 40, 320
"""Two sizes, eight times apart: a quadratic step costs 64 times more at the second."""

SLACK = 1.1
"""
Calls per item may grow this much from one size to the other (they shrink:
the fixed costs spread); 320 methods checked against each other add a fifth.
"""


def calls(work: Callable[[], object]) -> int:
    """The Python and C calls `work` makes."""
    count = 0

    def profile(_frame: FrameType, event: str, _arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
    return count


def calls_to_parse(text: str) -> int:
    parse_pypto(CTX, text)  # warm the caches of types and constants
    return calls(lambda: parse_pypto(CTX, text))


def items(count: int) -> str:
    """A loop whose body has `count` load, add, store steps on one tensor."""
    steps = [
        f"o{k + 1}: pl.Scalar[pl.INDEX] = o{k} + 64\n"
        f"    t{k}: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [o{k}], [64])\n"
        f"    y{k}: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t{k}, 1.0)\n"
        f"    out{k + 1}: pl.Tensor[[{64 * (count + 4)}], pl.FP32] = "
        f"pl.tile.store(y{k}, [o{k}], out{k})\n"
        for k in range(count)
    ]
    body = "for i in pl.range(0, 4, 1):\n    o0: pl.Scalar[pl.INDEX] = i * 64\n"
    return program(
        body + "".join(f"    {step}" for step in steps),
        params=f"x: pl.Tensor[[{64 * (count + 4)}], pl.FP32], "
        f"out0: pl.Tensor[[{64 * (count + 4)}], pl.FP32]",
    )


def methods(count: int) -> str:
    """A program class with `count` methods of one step each."""
    method = (
        "    @pl.function\n"
        "    def k{}(self, x: pl.Tensor[[64], pl.FP32]):\n"
        "        t: pl.Tile[[64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [0], [64])\n"
    )
    return "import pypto.language as pl\n\n\n@pl.program\nclass P:\n" + "".join(
        method.format(k) for k in range(count)
    )


def test_calls_per_statement_stay_flat():
    small, large = calls_to_parse(items(SMALL)), calls_to_parse(items(LARGE))
    assert large / LARGE <= SLACK * small / SMALL


def test_calls_per_method_stay_flat():
    small, large = calls_to_parse(methods(SMALL)), calls_to_parse(methods(LARGE))
    assert large / LARGE <= SLACK * small / SMALL
