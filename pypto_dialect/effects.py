"""
Memory effects of the tile ops and of declared allocations.

Loads read the tensor they load from, stores write the tensor they store to,
and the cross-core ops read and write a channel resource. Ops that access a
tensor window also implement `TensorWindowAccess`, so analyses can reason about
which part of the tensor they touch. `pypto.alloc` allocates and
`pypto.bind` writes the storage of a declared allocation
(`AllocationStorage`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence, Set
from dataclasses import dataclass
from enum import auto

from xdsl.ir import Operation, SSAValue
from xdsl.traits import EffectInstance, MemoryEffect, MemoryEffectKind, Resource
from xdsl.utils.str_enum import StrEnum


class TensorWindowAccess(ABC):
    """An op that reads or writes the window `[offsets, offsets + shape)` of a tensor."""

    @property
    @abstractmethod
    def accessed_tensor(self) -> SSAValue: ...

    @property
    @abstractmethod
    def window_offsets(self) -> Sequence[SSAValue]: ...

    @property
    @abstractmethod
    def window_shape(self) -> tuple[int, ...]: ...


def _accessed_tensor(op: Operation) -> SSAValue:
    if not isinstance(op, TensorWindowAccess):
        raise TypeError(f"{op.name} does not implement TensorWindowAccess")
    return op.accessed_tensor


class ReadsTensorWindow(MemoryEffect):
    """The op reads a window of `op.accessed_tensor`."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.READ, _accessed_tensor(op))}


class WritesTensorWindow(MemoryEffect):
    """The op writes a window of `op.accessed_tensor`."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {EffectInstance(MemoryEffectKind.WRITE, _accessed_tensor(op))}


class ChannelDirection(StrEnum):
    """Direction of a cross-core tile channel."""

    AIC_TO_AIV = auto()
    AIV_TO_AIC = auto()


@dataclass(frozen=True)
class CrossCoreChannel(Resource):
    """The FIFO between the cube core (AIC) and the vector core (AIV)."""

    direction: ChannelDirection

    def name(self) -> str:
        return f"pypto.channel.{self.direction.value}"


class CrossCoreChannelOp(ABC):
    """An op that pushes to or pops from a cross-core channel."""

    @property
    @abstractmethod
    def channel(self) -> CrossCoreChannel: ...


class UsesCrossCoreChannel(MemoryEffect):
    """The op reads and writes (pushes or pops) its cross-core channel."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        if not isinstance(op, CrossCoreChannelOp):
            raise TypeError(f"{op.name} does not implement CrossCoreChannelOp")
        channel = op.channel
        return {
            EffectInstance(MemoryEffectKind.READ, resource=channel),
            EffectInstance(MemoryEffectKind.WRITE, resource=channel),
        }


@dataclass(frozen=True)
class AllocationStorage(Resource):
    """
    The on-chip memory of the allocations `pypto.alloc` declares. An effect
    on it names the allocation (its value); which slot of it a binding
    takes is for the analyses to read off the binding.
    """

    def name(self) -> str:
        return "pypto.allocation"


ALLOCATION_STORAGE = AllocationStorage()


class DeclaresAllocation(MemoryEffect):
    """The op allocates the storage its (single) result names."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        return {
            EffectInstance(MemoryEffectKind.ALLOC, op.results[0], ALLOCATION_STORAGE)
        }


class AllocationBinding(ABC):
    """An op that puts a tile into (a slot of) a declared allocation."""

    @property
    @abstractmethod
    def bound_allocation(self) -> SSAValue: ...

    @property
    @abstractmethod
    def bound_slot(self) -> SSAValue | None:
        """The slot's index; None for the one slot of an allocation of one."""


class WritesAllocation(MemoryEffect):
    """The op writes the allocation it binds a tile to (`AllocationBinding`)."""

    @classmethod
    def get_effects(cls, op: Operation) -> Set[EffectInstance]:
        if not isinstance(op, AllocationBinding):
            raise TypeError(f"{op.name} does not implement AllocationBinding")
        allocation = op.bound_allocation
        return {EffectInstance(MemoryEffectKind.WRITE, allocation, ALLOCATION_STORAGE)}
