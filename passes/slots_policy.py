"""
The policy of `lower-pipeline-to-slots` (PyPTO's LowerPipelineToSlots):
which `pypto.pipeline` loops may keep one body whose loads rotate through
the slots of one allocation each, and which must be declined, whole, and
left to `lower-pipeline-loops` to replicate.

Every gate mirrors one of PyPTO's (itself mirroring what ptoas can describe
as a multi-buffer region): F = stages in [2, 16]; a step of 1 and a start
that is a multiple of F (so `iv % F` is the iteration's slot; here also not
negative, as `arith.remsi` keeps the sign); no enclosing pipeline declined
(its copies would each take a slot of one allocation); a load to bind at the
top level of the body; each such load in `vec`, `mat` or `acc`, not carried
out of the body or into a nested loop (a yield or an `iter_args` value: a
phi would share its slot), not updated in place (`matmul_acc`'s
accumulator, `tile.write`'s tile: the result would be the same buffer); and
the slots fitting the memory space, counted over the whole function with the
allocations the author declared. A load the author already bound is left
alone and does not decline the loop. Valid shapes are always static here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.traits import IsTerminator

from passes.analysis.footprint import padded_bytes
from passes.analysis.slots import declared_bytes
from pypto_dialect.allocation import MAX_SLOTS, AllocOp, BindOp
from pypto_dialect.constants import constant_int
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import LoadOp, MatmulAccOp, WriteOp
from pypto_dialect.types import SLOT_SPACES, MemorySpace, TileType

MIN_STAGES = 2
"""The fewest slots of a rotation (ptoas's bound)."""


class Gate(Enum):
    """Why a loop is declined: the gate's name (as `explain` prints it)."""

    STAGES = "stages"
    NESTED = "nested"
    STEP = "step"
    START = "start"
    NO_LOAD = "no-load"
    SPACE = "space"
    CARRIED = "carried"
    IN_PLACE = "in-place"
    CAPACITY = "capacity"


@dataclass(frozen=True)
class Decline:
    """A loop declined: the gate, the op that tripped it, and what it found."""

    gate: Gate
    op: Operation
    detail: str


def check_loop(loop: PipelineOp, declined_around: PipelineOp | None) -> Decline | None:
    """The gates of the loop itself (`declined_around`: a declined pipeline around it)."""
    stages = loop.num_stages
    if declined_around is not None:
        return Decline(
            Gate.NESTED,
            declined_around,
            "a pipeline around it is declined: its copies would each take a slot",
        )
    if not MIN_STAGES <= stages <= MAX_SLOTS:
        return Decline(
            Gate.STAGES,
            loop,
            f"stages {stages} is outside [{MIN_STAGES}, {MAX_SLOTS}], the slot "
            "counts of a region",
        )
    if constant_int(loop.step) != 1:
        return Decline(Gate.STEP, loop, "the step is not the constant 1")
    start = constant_int(loop.lb)
    if start is None or start < 0 or start % stages:
        return Decline(
            Gate.START,
            loop,
            f"the start is not a constant, non-negative multiple of {stages}, so "
            f"iv % {stages} is not the iteration's slot",
        )
    return None


def is_bound(load: LoadOp) -> bool:
    """Whether the author bound the load's tile (a binding uses it)."""
    return any(
        type(use.operation) is BindOp and use.index == 0 for use in load.results[0].uses
    )


def slot_candidates(loop: PipelineOp) -> list[LoadOp] | Decline:
    """
    The loads of the body's top level to bind (those the author did not), or
    the gate that declines the loop.
    """
    # `type() is`: xDSL's ABCs make `isinstance` slow, and no class derives from LoadOp.
    loads = [
        op for op in loop.body.block.ops if type(op) is LoadOp and not is_bound(op)
    ]
    if not loads:
        return Decline(Gate.NO_LOAD, loop, "no load of its body to bind")
    for load in loads:
        if (decline := _check_load(load)) is not None:
            return decline
    return loads


def _check_load(load: LoadOp) -> Decline | None:
    """The gate a load that wants a slot trips, if any."""
    result = load.results[0]
    tile = result.type
    assert isinstance(tile, TileType)
    if tile.memory_space not in SLOT_SPACES:
        return Decline(
            Gate.SPACE,
            load,
            f"its tile is in {tile.memory_space.value}; slots are in vec, mat or acc",
        )
    for use in result.uses:
        user = use.operation
        if user.regions or user.has_trait(IsTerminator):
            return Decline(
                Gate.CARRIED,
                load,
                f"its tile is carried by '{user.name}' (a loop-carried or yielded "
                "value would share its slot)",
            )
        if (isinstance(user, MatmulAccOp) and user.acc is result) or (
            isinstance(user, WriteOp) and user.tile is result
        ):
            return Decline(
                Gate.IN_PLACE,
                load,
                f"'{user.name}' updates its tile in place (its result would be the "
                "slot's buffer)",
            )
    return None


def declarations(function: func.FuncOp) -> list[AllocOp]:
    """The allocations `function` declares (in its body, at the top level)."""
    return [
        op
        for block in function.body.blocks
        for op in block.ops
        if isinstance(op, AllocOp)
    ]


@dataclass
class SlotBudget:
    """
    The bytes the slots pin, per memory space, in one function: the
    allocations the author declared, then the rotations admitted.
    """

    capacities: Mapping[MemorySpace, int]
    pinned: dict[MemorySpace, int] = field(default_factory=dict[MemorySpace, int])

    @classmethod
    def of_function(
        cls, function: func.FuncOp, capacities: Mapping[MemorySpace, int]
    ) -> SlotBudget:
        budget = cls(capacities)
        for declaration in declarations(function):
            budget.add(declaration.memory_space, declared_bytes(declaration))
        return budget

    def add(self, space: MemorySpace, size: int) -> None:
        """Pin `size` more bytes of `space`."""
        self.pinned[space] = self.pinned.get(space, 0) + size

    def admit(self, loop: PipelineOp, loads: Sequence[LoadOp]) -> Decline | None:
        """Pin F slots for each load, or decline the loop if a space overflows."""
        stages = loop.num_stages
        added: dict[MemorySpace, int] = {}
        sizes: dict[TileType, tuple[MemorySpace, int]] = {}  # loads share few types
        for load in loads:
            tile = load.results[0].type
            assert isinstance(tile, TileType)
            known = sizes.get(tile)
            if known is None:
                known = sizes[tile] = (tile.memory_space, padded_bytes(tile))
            space, size = known
            added[space] = added.get(space, 0) + stages * size
            capacity = self.capacities[space]
            pinned = self.pinned.get(space, 0)
            if pinned + added[space] > capacity:
                left = max(capacity - pinned, 0)
                return Decline(
                    Gate.CAPACITY,
                    load,
                    f"the slots of the loop's {space.value} tiles so far need more "
                    f"than the {left} bytes of {space.value} left of its {capacity} "
                    "(the cost table's capacity, less the slots already pinned)",
                )
        for space, size in added.items():
            self.add(space, size)
        return None
