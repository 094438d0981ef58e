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
    """How to skew one loop."""

    produce: Sequence[Operation]
    """The ops of the body run ahead, in body order (no terminator)."""
    consume: Sequence[Operation]
    """The ops run behind, in body order (no terminator)."""
    depth: int
    """How many iterations the produce half runs ahead (at least 1)."""
    step: int
    """The step of the loop (positive); `(2*depth - 1)*step` fits in `index`."""
    bounds: tuple[int, int] | None = None
    """
    The lower bound and the trip count, when constants: the trip count a
    multiple of `depth`, at least `2*depth`. None: the loop's bounds are
    values, and a runtime guard picks the skew or the loop as it was.
    """


def skew_loop(
    loop: PipelineOp, skew: Skew, rewriter: PatternRewriter, annotate: Annotate
) -> scf.ForOp:
    """
    Replace `loop` by its prologue, steady loop and epilogue (the steady
    loop runs up to the loop's own upper bound and has the loop's location,
    so that a report finds it again). Without constant bounds,
    they run under an `scf.if` whose condition is `trip >= 2*depth` and
    `trip % depth == 0`, computed without overflow; the else branch is the
    loop as it was, an `scf.for`. Returns the steady loop.
    """
    copier = _Copier(loop, annotate)
    if skew.bounds is not None:
        lb = skew.bounds[0]
        new_ops: list[Operation] = []
        steady_loop, carried = _skewed(
            loop, skew, copier, lambda offset: _index(lb + offset, new_ops), new_ops
        )
        rewriter.replace(loop, new_ops, list(carried))
        return steady_loop
    guard_ops: list[Operation] = []
    condition = _guard(loop, skew, guard_ops)
    then_ops: list[Operation] = []
    steady_loop, carried = _skewed(
        loop, skew, copier, lambda offset: _shifted(loop.lb, offset, then_ops), then_ops
    )
    then_ops.append(scf.YieldOp(*carried))
    sequential = _sequential(loop)
    branch = scf.IfOp(
        condition,
        [result.type for result in loop.results],
        then_ops,
        [sequential, scf.YieldOp(*sequential.results)],
    )
    rewriter.replace(loop, [*guard_ops, branch], list(branch.results))
    return steady_loop


def _skewed(
    loop: PipelineOp,
    skew: Skew,
    copier: _Copier,
    at_offset: Callable[[int], SSAValue],
    new_ops: list[Operation],
) -> tuple[scf.ForOp, Sequence[SSAValue]]:
    """
    Append the prologue, steady loop and epilogue to `new_ops`, the
    iteration at `lb + offset` given by `at_offset`; with dynamic bounds the
    steady loop also carries the first iteration of its last group, where
    the epilogue starts. Returns the steady loop and the final values.
    """
    depth, step = skew.depth, skew.step
    for index in range(depth):
        copier.copy(skew.produce, at_offset(index * step), (), index, new_ops)
    first = at_offset(depth * step)
    stride = _index(depth * step, new_ops)
    inits = [*loop.iter_args, *([] if skew.bounds else [loop.lb])]
    steady = Block(arg_types=[IndexType(), *(value.type for value in inits)])
    k = steady.args[0]
    k.name_hint = loop.induction_var.name_hint
    steady_ops: list[Operation] = []
    for index in range(depth):
        copier.copy(
            skew.produce, _shifted(k, index * step, steady_ops), (), index, steady_ops
        )
    carried: Sequence[SSAValue] = steady.args[1 : 1 + len(loop.iter_args)]
    for index in range(depth):
        at = _shifted(k, (index - depth) * step, steady_ops)
        carried = copier.copy(skew.consume, at, carried, index, steady_ops)
    steady_ops.append(scf.YieldOp(*carried, *([] if skew.bounds else [k])))
    steady.add_ops(steady_ops)
    steady_loop = scf.ForOp(first, loop.ub, stride, inits, steady)
    steady_loop.location = loop.location
    for result, old in zip(steady_loop.results, loop.results, strict=False):
        result.name_hint = old.name_hint
    new_ops.append(steady_loop)
    carried = steady_loop.results[: len(loop.iter_args)]
    for index in range(depth):
        if skew.bounds is not None:
            lb, trip = skew.bounds
            at = _index(lb + (trip - depth + index) * step, new_ops)
        else:
            at = _shifted(steady_loop.results[-1], index * step, new_ops)
        carried = copier.copy(skew.consume, at, carried, index, new_ops)
    return steady_loop, carried


def _guard(loop: PipelineOp, skew: Skew, into: list[Operation]) -> SSAValue:
    """
    `trip >= 2*depth and trip % depth == 0`, with `trip - 1 = (ub - lb - 1)
    /u step` once `ub > lb`: `ub - lb` read unsigned never overflows.
    """
    depth, step = skew.depth, skew.step

    def emit(op: Operation) -> SSAValue:
        into.append(op)
        return op.results[0]

    runs = emit(arith.CmpiOp(loop.ub, loop.lb, "sgt"))
    span = emit(arith.SubiOp(loop.ub, loop.lb))
    least = _index((2 * depth - 1) * step, into)
    long_enough = emit(arith.CmpiOp(span, least, "ugt"))
    condition = emit(arith.AndIOp(runs, long_enough))
    if depth == 1:
        return condition
    before_last = emit(arith.SubiOp(span, _index(1, into)))
    trips_before_last = emit(arith.DivUIOp(before_last, _index(step, into)))
    phase = emit(arith.RemUIOp(trips_before_last, _index(depth, into)))
    whole = emit(arith.CmpiOp(phase, _index(depth - 1, into), "eq"))
    return emit(arith.AndIOp(condition, whole))


def _sequential(loop: PipelineOp) -> scf.ForOp:
    """A copy of `loop` as the `scf.for` it means."""
    mapper: dict[SSAValue, SSAValue] = {}
    body = Block(arg_types=[arg.type for arg in loop.body.block.args])
    for old, new in zip(loop.body.block.args, body.args, strict=True):
        new.name_hint = old.name_hint
        mapper[old] = new
    for op in loop.body.block.ops:
        if op is loop.body.block.last_op:
            body.add_op(scf.YieldOp(*(mapper.get(v, v) for v in op.operands)))
        else:
            body.add_op(op.clone(value_mapper=mapper))
    return scf.ForOp(loop.lb, loop.ub, loop.step, loop.iter_args, body)


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
    if offset == 0:
        return k
    amount = _index(abs(offset), into)
    shifted = arith.AddiOp(k, amount) if offset > 0 else arith.SubiOp(k, amount)
    shifted.result.name_hint = k.name_hint
    into.append(shifted)
    return shifted.result
