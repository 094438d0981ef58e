"""
Software pipelining by skew: a slice of a loop body runs `depth` iterations
ahead of the rest.

The loop's body splits into a *produce* half and a *consume* half (both in
body order; an op may be in both, when it is pure and cheap to recompute, as
an address computation). The loop becomes a prologue of `depth` produces, a
steady `scf.for` whose induction variable `k` leads each group of `depth`
iterations (produces at `k`, `k+step`, ...; then the consumes at
`k-depth*step`, ..., `k-step`), and an epilogue of the last `depth` consumes.
The loop-carried values thread through the consumes in iteration order; the
produce half must not read them. Which loops, which halves and which depth
are the caller's policy.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from pypto_dialect.pipeline import PipelineOp

Annotate = Callable[[int, Sequence[Operation]], None]
"""Called with each copy's position in its group (0 to depth-1) and its ops."""


@dataclass(frozen=True)
class Skew:
    """How to skew one loop with static bounds."""

    produce: Sequence[Operation]
    """The ops of the body run ahead, in body order (no terminator)."""
    consume: Sequence[Operation]
    """The ops run behind, in body order (no terminator)."""
    depth: int
    """How many iterations the produce half runs ahead (at least 1)."""
    lb: int
    """The first value of the induction variable."""
    trip: int
    """The iterations of the loop: a multiple of `depth`, at least `2*depth`."""
    step: int
    """The step of the loop; `depth*step` fits in `index`."""


def skew_loop(
    loop: PipelineOp, skew: Skew, rewriter: PatternRewriter, annotate: Annotate
) -> scf.ForOp:
    """
    Replace `loop` by its prologue, steady loop and epilogue; the steady loop
    runs up to the loop's own upper bound. Returns the steady loop.
    """
    depth, lb, step = skew.depth, skew.lb, skew.step
    copier = _Copier(loop, annotate)
    new_ops: list[Operation] = []
    for index in range(depth):
        at = _index(lb + index * step, new_ops)
        copier.copy(skew.produce, at, (), index, new_ops)
    first = _index(lb + depth * step, new_ops)
    stride = _index(depth * step, new_ops)
    inits = tuple(loop.iter_args)
    steady = Block(arg_types=[IndexType(), *(value.type for value in inits)])
    k = steady.args[0]
    k.name_hint = loop.induction_var.name_hint
    steady_ops: list[Operation] = []
    for index in range(depth):
        at = k if index == 0 else _shifted(k, index * step, steady_ops)
        copier.copy(skew.produce, at, (), index, steady_ops)
    carried: Sequence[SSAValue] = steady.args[1:]
    for index in range(depth):
        at = _shifted(k, (index - depth) * step, steady_ops)
        carried = copier.copy(skew.consume, at, carried, index, steady_ops)
    steady_ops.append(scf.YieldOp(*carried))
    steady.add_ops(steady_ops)
    steady_loop = scf.ForOp(first, loop.ub, stride, inits, steady)
    for result, old in zip(steady_loop.results, loop.results, strict=True):
        result.name_hint = old.name_hint
    new_ops.append(steady_loop)
    carried = steady_loop.results
    for index in range(depth):
        at = _index(lb + (skew.trip - depth + index) * step, new_ops)
        carried = copier.copy(skew.consume, at, carried, index, new_ops)
    rewriter.replace(loop, new_ops, list(carried))
    return steady_loop


@dataclass(frozen=True)
class _Copier:
    """Copies of one half of `loop`'s body at a given induction variable."""

    loop: PipelineOp
    annotate: Annotate

    def copy(
        self,
        ops: Sequence[Operation],
        induction_var: SSAValue,
        carried: Sequence[SSAValue],
        index: int,
        into: list[Operation],
    ) -> Sequence[SSAValue]:
        """
        Append copies of `ops` to `into`, the induction variable and the
        loop-carried values mapped; return what the body would yield.
        """
        mapper: dict[SSAValue, SSAValue] = {self.loop.induction_var: induction_var}
        mapper.update(zip(self.loop.region_iter_args, carried, strict=False))
        copies = [op.clone(value_mapper=mapper) for op in ops]
        self.annotate(index, copies)
        into.extend(copies)
        terminator = self.loop.body.block.last_op
        assert terminator is not None, "verified pipelines end in pypto.yield"
        if not carried:
            return ()
        return [mapper.get(value, value) for value in terminator.operands]


def _index(value: int, into: list[Operation]) -> SSAValue:
    """`arith.constant value : index`, appended to `into`."""
    constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
    constant.result.name_hint = f"c{value}" if value >= 0 else f"c_minus_{-value}"
    into.append(constant)
    return constant.result


def _shifted(k: SSAValue, offset: int, into: list[Operation]) -> SSAValue:
    """`k + offset` (an `arith.addi` or `arith.subi` by a constant), appended to `into`."""
    amount = _index(abs(offset), into)
    shifted = arith.AddiOp(k, amount) if offset > 0 else arith.SubiOp(k, amount)
    shifted.result.name_hint = k.name_hint
    into.append(shifted)
    return shifted.result
