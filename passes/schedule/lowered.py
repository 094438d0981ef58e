"""
A pipeline and the loop the passes make of it: copies of its nest to lower
(`nest_module`, `copy_for_passes`), the loop found again after the passes
(`find_loop`), its figures (`Figures`, `loop_figures`) and its remainder
(`remainder_ops`, `Whole`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IntAttr,
    LocationAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.traits import ConstantLike, SymbolTable

from passes.analysis.graph import schedulable_ops
from passes.analysis.iterations import Loop
from passes.orders.category import effective_membership
from passes.schedule.engines import CostModel, Unit
from passes.schedule.recurrence import CycleRatio, recurrence_bound
from passes.schedule.timeline import (
    MAX_SIMULATED_ITERATIONS,
    MIN_ITERATIONS,
    LoopModel,
    NotPeriodic,
    Timeline,
)
from pypto_dialect.allocation import AllocOp
from pypto_dialect.constants import constant_int
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import ancestors, closest, walk_ops

DYNAMIC_TRIP = "dynamic trip count: give it with --trip N (the pass: trip=N)"
"""The note of a whole loop without a trip count."""

NO_LOCATION = StringAttr("<pipeline-report>")
"""The file name of the locations given to pipelines without one."""


@dataclass(frozen=True)
class Whole:
    """The time of a whole loop: every iteration, warm-up, drain and remainder."""

    trip: int | None
    """Original iterations (None: a dynamic trip count without `trip`)."""
    time: float | None
    """Cycles from the first op to the last (None: not simulated, see `note`)."""
    note: str = ""


@dataclass(frozen=True)
class Figures:
    """A timeline's figures per original iteration (the loop's step over `copies`)."""

    timeline: Timeline
    copies: int
    """Original iterations per iteration of the loop (F after the lowering)."""
    recurrence: CycleRatio
    """RecMII per iteration of the loop: the slowest chain of dependences into the next."""
    whole: Whole = Whole(None, None)

    def per_iteration(self, time: float) -> float:
        return time / self.copies

    @property
    def time(self) -> float:
        return self.per_iteration(self.timeline.time_per_iteration)

    @property
    def resource_bound(self) -> float:
        """ResMII: the busiest unit's time."""
        return self.per_iteration(self.timeline.bound)

    @property
    def recurrence_bound(self) -> float:
        return self.per_iteration(self.recurrence.ratio)

    @property
    def bound(self) -> float:
        """The larger of the resource and the recurrence bound."""
        return max(self.resource_bound, self.recurrence_bound)

    @property
    def efficiency(self) -> float:
        """bound / modelled time: 1 when the loop runs at its bound."""
        return 1.0 if self.time == 0 else self.bound / self.time

    @property
    def busy(self) -> dict[Unit, float]:
        return {u: self.per_iteration(t) for u, t in self.timeline.busy.items()}

    @property
    def fits(self) -> bool:
        return not self.timeline.over_capacity

    @property
    def whole_efficiency(self) -> float | None:
        """bound x trip / whole-loop time: what warm-up, drain and remainder cost."""
        whole = self.whole
        if whole.time is None or whole.trip is None:
            return None
        return 1.0 if whole.time == 0 else self.bound * whole.trip / whole.time

    def to_json(self) -> dict[str, Any]:
        timeline = self.timeline
        bottleneck = timeline.bottleneck
        return {
            "time_per_iteration": self.time,
            "bound": self.bound,
            "resource_bound": self.resource_bound,
            "recurrence_bound": self.recurrence_bound,
            "recurrence_exact": self.recurrence.exact,
            "bottleneck": None if bottleneck is None else timeline.label(bottleneck),
            "efficiency": self.efficiency,
            "busy": {timeline.label(u): t for u, t in self.busy.items()},
            "peak_bytes": {str(s): b for s, b in timeline.peak_bytes.items()},
            "over_capacity": sorted(str(s) for s in timeline.over_capacity),
            "iterations_per_loop_iteration": self.copies,
            "steady_state": "periodic" if timeline.converged else "average",
            "cores": [str(core) for core in timeline.cores],
            "whole_loop": {
                "trip": self.whole.trip,
                "time": self.whole.time,
                "efficiency": self.whole_efficiency,
                "note": self.whole.note,
            },
        }


def pipelines(module: Operation) -> list[PipelineOp]:
    """The pipelines of `module`, in program order."""
    return [op for op in walk_ops(module) if isinstance(op, PipelineOp)]


def copy_for_passes(module: ModuleOp) -> tuple[ModuleOp, tuple[LocationAttr, ...]]:
    """A copy of `module` whose pipelines have unique locations, and those locations."""
    copy = module.clone()
    keys: list[LocationAttr] = []
    for index, pipeline in enumerate(pipelines(copy)):
        if (
            not isinstance(pipeline.location, FileLineColLoc)
            or pipeline.location in keys
        ):
            pipeline.location = FileLineColLoc(
                NO_LOCATION, IntAttr(index + 1), IntAttr(1)
            )
        keys.append(pipeline.location)
    return copy, tuple(keys)


def nest_module(pipeline: PipelineOp) -> tuple[ModuleOp, int]:
    """
    A module of one function that holds a copy of the outermost pipeline
    around `pipeline` (itself if none), and `pipeline`'s index among the
    copy's pipelines: what the passes lower of it, so that a candidate costs
    its nest, not the module. The values the nest takes from outside are
    the function's arguments, but for constants and allocations, copied
    with it (bounds stay static); a function it calls is declared.
    """
    root = pipeline
    for outer in ancestors(pipeline):
        if isinstance(outer, PipelineOp):
            root = outer
    inside = set(walk_ops(root))
    block = Block()
    mapper: dict[SSAValue, SSAValue] = {}
    callees: dict[str, func.FuncOp] = {}
    for op in walk_ops(root):
        if isinstance(op, func.CallOp):
            _declare_callee(op, callees)
        for value in op.operands:
            owner = value.owner
            if (
                value in mapper
                or (owner if isinstance(owner, Operation) else owner.parent_op())
                in inside
            ):
                continue
            if isinstance(owner, Operation) and (
                owner.has_trait(ConstantLike) or isinstance(owner, AllocOp)
            ):
                block.add_op(owner.clone(value_mapper=mapper))
            else:
                mapper[value] = block.insert_arg(value.type, len(block.args))
    block.add_ops((root.clone(value_mapper=mapper), func.ReturnOp()))
    function = closest(pipeline, func.FuncOp)
    name = "nest" if function is None else function.sym_name.data
    nest = func.FuncOp(name, ([arg.type for arg in block.args], []), Region(block))
    index = pipelines(root).index(pipeline)
    return ModuleOp([*callees.values(), nest]), index


def _declare_callee(call: func.CallOp, callees: dict[str, func.FuncOp]) -> None:
    """Declare the function `call` calls, as the module declares or defines it."""
    callee = SymbolTable.lookup_symbol(call, call.callee)
    name = call.callee.string_value()
    if isinstance(callee, func.FuncOp) and name not in callees:
        kind = callee.function_type
        callees[name] = func.FuncOp.external(name, kind.inputs.data, kind.outputs.data)


def find_loop(module: ModuleOp, key: LocationAttr) -> Loop | None:
    """The first loop of `module` with location `key`."""
    return next(
        (
            op
            for op in walk_ops(module)
            if isinstance(op, scf.ForOp | PipelineOp) and op.location == key
        ),
        None,
    )


def _copies(before: PipelineOp, after: Loop) -> int:
    """Original iterations per iteration of `after`: the ratio of the steps."""
    old, new = constant_int(before.step), constant_int(after.step)
    if old is None or new is None or old <= 0 or new % old:
        return 1
    return new // old


def loop_figures(
    loop: LoopModel,
    copies: int,
    trip: int | None,
    remainder: Sequence[Operation] | Loop = (),
    *,
    min_iterations: int = MIN_ITERATIONS,
) -> Figures:
    """
    The figures of a prepared loop whose iteration is `copies` original
    ones, and its whole-loop time over `trip` original iterations: the loop
    over `trip // copies` iterations, then `remainder` (the rest of the
    iterations: ops run once, or a loop of one copy per iteration) once the
    loop has drained.
    """
    timeline = loop.simulate(min_iterations=min_iterations)
    recurrence = recurrence_bound(loop)
    if trip is None:
        return Figures(timeline, copies, recurrence, Whole(None, None, DYNAMIC_TRIP))
    try:
        time = loop.total_time(trip // copies)
    except NotPeriodic:
        note = (
            f"over {MAX_SIMULATED_ITERATIONS} iterations, not periodic: not simulated"
        )
        return Figures(timeline, copies, recurrence, Whole(trip, None, note))
    if isinstance(remainder, Loop):
        time += LoopModel.prepare(remainder, loop.model).total_time(trip % copies)
    elif remainder:
        time += LoopModel.straight(remainder, loop.model).total_time(1)
    return Figures(timeline, copies, recurrence, Whole(trip, time))


def lowered_figures(
    pipeline: PipelineOp,
    lowered: Loop,
    model: CostModel,
    trip: int | None,
    prepared: dict[Loop, LoopModel] | None = None,
) -> Figures:
    """
    The figures of the loop `pipeline` became, with its remainder copies;
    `prepared` keeps each loop's model for the next cost table (its
    dependences are the IR's, whatever the table).
    """
    copies = _copies(pipeline, lowered)
    remainder: Sequence[Operation] | Loop = ()
    if trip is not None and trip % copies:
        remainder = remainder_loop(lowered) or remainder_ops(lowered, trip % copies)
    if prepared is None:
        loop = LoopModel.prepare(lowered, model)
    elif (known := prepared.get(lowered)) is None:
        loop = prepared[lowered] = LoopModel.prepare(lowered, model)
    else:
        loop = known.with_model(model)
    return loop_figures(loop, copies, trip, remainder)


def remainder_ops(lowered: Loop, count: int) -> Sequence[Operation]:
    """
    The copies of the body that run the last `count` iterations after the
    main loop `lowered`: the flattened copies that follow it (the lowering
    tags them with a group of their own: the ops up to the last one tagged
    (or taking a tagged op's result) with the group of the first), or the `count` branch of the
    `scf.if` cascade of a dynamic trip count.
    """
    copies, cascade = _remainder(lowered)
    return copies if cascade is None else _cascade_branch(cascade, count)


def remainder_extent(lowered: Loop) -> Sequence[Operation]:
    """
    The ops after the main loop `lowered` that run its remaining iterations,
    whatever their count: the remainder loop, the flattened copies, or the
    whole `scf.if` cascade.
    """
    if (loop := remainder_loop(lowered)) is not None:
        return (loop,)
    copies, cascade = _remainder(lowered)
    return copies if cascade is None else (cascade,)


def _remainder(lowered: Loop) -> tuple[Sequence[Operation], scf.IfOp | None]:
    """The flattened copies that follow `lowered`, or else the `scf.if` cascade."""
    group: int | None = None
    following: list[Operation] = []
    tagged = 0
    op = lowered.next_op
    while op is not None and not (group is None and isinstance(op, scf.IfOp)):
        if pairs := effective_membership(op):
            if group is not None and pairs[0][0] != group:
                break
            group = pairs[0][0]
            tagged = len(following) + 1
        following.append(op)
        op = op.next_op
    if group is not None or not isinstance(op, scf.IfOp):
        return following[:tagged], None
    return (), op


def remainder_loop(lowered: Loop) -> scf.ForOp | None:
    """
    The `scf.for` that runs the iterations after the main loop `lowered`
    (`lower-pipeline-loops{remainder=loop}`): the next loop of the block
    with `lowered`'s location, if only index arithmetic comes between.
    """
    op = lowered.next_op
    while isinstance(op, arith.ConstantOp):
        op = op.next_op
    if isinstance(op, scf.ForOp) and op.location == lowered.location:
        return op
    return None


def _cascade_branch(branch: scf.IfOp, count: int) -> Sequence[Operation]:
    """The ops of the `rem == count` branch of a cascade (`unroll.emit_cascade`)."""
    while True:
        condition = branch.cond.owner
        if not isinstance(condition, arith.CmpiOp):
            return ()
        if constant_int(condition.rhs) == count:
            return schedulable_ops(branch.true_region.block)
        nested = [op for op in branch.false_region.ops if isinstance(op, scf.IfOp)]
        if not nested:
            return ()
        branch = nested[0]
