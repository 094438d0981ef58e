"""
Cross-core kernels written as PyPTO programs (`pl.` text that `parse_pypto`
and PyPTO's own `pl.parse` both read): one function around one
`pl.pipeline` whose body pushes to and pops from the peer core.

`cross_core_kernels()` draws a `CrossCoreKernel`, which covers what
`skew-cross-core-pipeline` decides on: the producer role (push first, its
backward slice feeding the body only through the FIFO), the consumer role
(the pop first, feeding the body), a pop first that feeds nothing, one or
two messages per FIFO direction (the second independent or answering the
first pop), static bounds with any trip count from 0 (odd, below 2D, not a
multiple of D), dynamic bounds, stages 1-8, an accumulator through
`init_values` (read by the consumer half only, or by the producer half
too, or the popped tile yielded), an address the consumer half reads from
the producer half, and loads of what the stores of the iteration before
wrote.

Every kernel runs on the interpreter (`run`: the peer's tiles wait in the
channel it pops from, `n` is `ub`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp

from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter import KernelRun, find_kernel, random_inputs, run_kernel

Role = Literal["producer", "consumer", "idle_pop"]
"""
Which cross-core op comes first: the push (`producer`), the pop feeding the
body (`consumer`), or a pop whose tile nothing reads (`idle_pop`).
"""
Carried = Literal["none", "consumer", "producer", "popped"]
"""
No `init_values`; an accumulator the consumer half reads; one the producer
half reads too; or the first popped tile, yielded as it is.
"""

TILE = "pl.Tile[[4, 8], pl.FP32]"
ROWS = 160
"""Rows of the tensors: the largest `ub` (3 + 16 * 2) times 4, a step and a tile."""


@dataclass(frozen=True)
class CrossCoreKernel:
    """A generated cross-core loop (function `main`) and what it exercises."""

    role: Role
    stages: int
    lb: int
    trip: int
    step: int
    round_trips: int
    """Messages per FIFO direction per iteration."""
    answering: bool
    """A later push is computed from the pop before it (else from the load)."""
    carried: Carried
    shared_address: bool
    """The consumer half stores at the row the producer half computes."""
    dynamic: bool
    """The upper bound is the parameter `n`."""
    cube: bool
    """Talks to the vector core (`tpush_to_aiv`), else to the cube core."""
    aliased: bool
    """
    The loads read `out`, the tensor the stores write: the store of one
    iteration writes the rows the loads of the next one read.
    """

    @property
    def ub(self) -> int:
        return self.lb + self.trip * self.step

    @property
    def pops(self) -> int:
        """Tiles the loop pops (the peer must have pushed them)."""
        return self.trip * self.round_trips

    @property
    def pypto_skews(self) -> bool:
        """PyPTO's policy: a static producer of one message, stages > 1, trip >= 2."""
        return (
            self.role != "consumer"
            and self.stages > 1
            and not self.dynamic
            and self.trip >= 2
            and self.round_trips == 1
            and not (self.carried == "producer" and self.role == "producer")
        )

    def run(self, module: ModuleOp, seed: int) -> KernelRun:
        """`main` of `module` on seeded inputs, the peer's tiles waiting in the channel it pops."""
        args = random_inputs(find_kernel(module, "main"), seed, {"n": self.ub})
        rng = np.random.default_rng(seed)
        peer = [
            rng.standard_normal((4, 8)).astype(np.float32) for _ in range(self.pops)
        ]
        popped = (
            ChannelDirection.AIV_TO_AIC if self.cube else ChannelDirection.AIC_TO_AIV
        )
        return run_kernel(module, "main", args, channels={popped: peer})

    def _push(self, value: str) -> str:
        peer = "aiv" if self.cube else "aic"
        return f"pl.tile.tpush_to_{peer}({value}, split=0)"

    def _pop(self, name: str) -> str:
        peer = "aiv" if self.cube else "aic"
        return f"{name}: {TILE} = pl.tile.tpop_from_{peer}(split=0)"

    def _load(self, name: str) -> str:
        source = "out" if self.aliased else "x"
        return f"{name}: {TILE} = pl.tile.load({source}, [row, 0], [4, 8])"

    def _messages(self) -> list[str]:
        """The body's round trips, the first as the role says."""
        extra = ", acc" if self.carried == "producer" else ""
        body: list[str] = []
        if self.role == "producer":
            body.append(self._load("l0"))
        for trip in range(self.round_trips):
            if self.role == "producer":
                if trip == 0:
                    source = f"l0{extra}" if extra else "l0, l0"
                    body.append(f"p0: {TILE} = pl.tile.add({source})")
                else:
                    last = f"e{trip - 1}" if self.answering else "l0"
                    body.append(f"p{trip}: {TILE} = pl.tile.mul({last}, {last})")
                body += [self._push(f"p{trip}"), self._pop(f"e{trip}")]
                continue
            body += [self._pop(f"e{trip}"), self._load(f"w{trip}")]
            fed = f"e{trip}" if self.role == "consumer" else f"w{trip}"
            second = "acc" if trip == 0 and extra else f"w{trip}"
            body += [
                f"p{trip}: {TILE} = pl.tile.sub({fed}, {second})",
                self._push(f"p{trip}"),
            ]
        return body

    def text(self) -> str:
        """The PyPTO program `CrossCore`, function `main(x, out, res, n)`."""
        last = self.round_trips - 1
        tiles = "e0, e{0}" if self.role == "producer" else "p0, p{0}"
        body = ["row: pl.Scalar[pl.INDEX] = i * 4", *self._messages()]
        at = "row"
        if not self.shared_address:
            body.append("row2: pl.Scalar[pl.INDEX] = i * 4")
            at = "row2"
        if self.aliased:
            at = f"{at} + {4 * self.step}"
        body += [
            f"t: {TILE} = pl.tile.add({tiles.format(last)})",
            f"pl.tile.store(t, [{at}, 0], out)",
        ]
        ub = "n" if self.dynamic else str(self.ub)
        bounds = f"{self.lb}, {ub}, {self.step}"
        before: list[str] = []
        after: list[str] = []
        loop = f"for i in pl.pipeline({bounds}, stage={self.stages}):"
        if self.carried != "none":
            before.append(f"acc0: {TILE} = pl.tile.load(x, [0, 0], [4, 8])")
            loop = (
                f"for i, (acc,) in pl.pipeline({bounds}, init_values=(acc0,), "
                f"stage={self.stages}):"
            )
            if self.carried == "popped":
                body.append(f"r: {TILE} = pl.yield_(e0)")
            else:
                body += [
                    f"acc2: {TILE} = pl.tile.add(acc, t)",
                    f"r: {TILE} = pl.yield_(acc2)",
                ]
            after.append("pl.tile.store(r, [0, 0], res)")
        tensor = f"pl.Tensor[[{ROWS}, 8], pl.FP32]"
        lines = [
            "import pypto.language as pl",
            "",
            "",
            "@pl.program",
            "class CrossCore:",
            "    @pl.function(strict_ssa=True)",
            f"    def main(self, x: {tensor}, out: {tensor}, "
            "res: pl.Tensor[[4, 8], pl.FP32], n: pl.Scalar[pl.INDEX]):",
            *(f"        {line}" for line in before),
            f"        {loop}",
            *(f"            {line}" for line in body),
            *(f"        {line}" for line in after),
        ]
        return "\n".join(lines) + "\n"


def _one_in(count: int) -> st.SearchStrategy[bool]:
    """True once in `count` draws (False shrinks first)."""
    return st.integers(1, count).map(lambda drawn: drawn == count)


def cross_core_kernels() -> st.SearchStrategy[CrossCoreKernel]:
    """
    Cross-core kernels of every role, bound and depth (see the module's
    docstring), half of them loops PyPTO skews: producers twice as often as
    each other role; dynamic bounds, second messages and loads of the stored
    tensor once in four.
    """
    return st.builds(
        CrossCoreKernel,
        role=st.sampled_from(("producer", "consumer", "producer", "idle_pop")),
        stages=st.integers(1, 8),
        lb=st.integers(0, 3),
        trip=st.integers(0, 16),
        step=st.integers(1, 2),
        round_trips=_one_in(4).map(lambda second: 2 if second else 1),
        answering=st.booleans(),
        carried=st.sampled_from(("none", "consumer", "producer", "popped")),
        shared_address=st.booleans(),
        dynamic=_one_in(4),
        cube=st.booleans(),
        aliased=_one_in(4),
    )
