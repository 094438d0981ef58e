"""
Whether a new order of a block's ops keeps every edge its dependence graph
would have, checked without building the graph.

Most pipeline bodies are copies of one body, and their priority order moves
loads earlier and keeps the stores of each tensor in program order: no
reordered pair of ops then touches the same memory with a write. Checking
that needs no windows, no frontier and no edges, only the tensors each op
touches: a reordered pair conflicts for the check when the graph would give
it a memory edge with windows unknown (`frontier.py`'s aliasing rule, every
window `ANYWHERE`), so a new order that passes keeps every edge of the graph.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import DefaultResource, Resource

from passes.analysis.frontier import is_noalias_argument
from passes.analysis.summaries import (
    CLASS_EFFECTS_OF,
    AccessKind,
    ClassEffects,
    OpSummaries,
    class_effects,
)
from pypto_dialect.effects import TensorWindowAccess

_Latest = list[int]
"""The latest new position among the earlier reads, and among the earlier writes."""
_READ, _WRITE = 0, 1


def keeps_dependences(
    ops: Sequence[Operation],
    order: Sequence[int],
    summaries: OpSummaries,
    footprints: OpSummaries,
) -> bool:
    """
    Whether putting `ops` (a block's ops in program order, without its
    terminator) into `order` (indices into `ops`) keeps every SSA and memory
    dependence among them: no op goes before an earlier op whose results it
    (or an op nested in it) uses, nor before an earlier op it may conflict
    with in memory. `summaries` gives the uses of ops with regions;
    `footprints`, an `OpSummaries` without windows, their accesses.
    """
    position = [0] * len(ops)
    for new, old in enumerate(order):
        position[old] = new
    index_of = {id(op): index for index, op in enumerate(ops)}.get
    memory = _MemoryOrder()
    for index, op in enumerate(ops):
        new = position[index]
        # As `DependenceGraph.build`: the operands of region-free ops, the
        # uses from outside of the others, edges from earlier ops only.
        for value in summaries.uses(op) if op.regions else op._operands:  # pyright: ignore[reportPrivateUsage]
            if type(value) is not OpResult:
                continue
            source = index_of(id(value.op))
            if source is not None and source < index and position[source] > new:
                return False
        effects = CLASS_EFFECTS_OF(type(op)) or class_effects(type(op))
        if effects is ClassEffects.NONE:
            continue
        if effects is ClassEffects.WINDOW_READ:
            tensor = cast(TensorWindowAccess, op).accessed_tensor
            if not memory.access(AccessKind.READ, DefaultResource, tensor, new):
                return False
            continue
        accesses = footprints.accesses(op)
        if accesses is None:
            if not memory.barrier(new):
                return False
            continue
        for access in accesses:
            resource = type(access.resource)
            if not memory.access(access.kind, resource, access.value, new):
                return False
    return True


class _MemoryOrder:
    """
    The accesses seen so far, in program order, by the latest new position
    of each kind per location: a new access keeps the order if it goes after
    every earlier access it may conflict with.
    """

    def __init__(self) -> None:
        self._latest_op = -1
        """Of the ops with memory accesses or unknown effects."""
        self._latest_barrier = -1
        self._per_resource: dict[type[Resource], tuple[_Latest, _Latest]] = {}
        """Per resource kind: of all its accesses; of those that may alias anything."""
        self._per_argument: dict[tuple[type[Resource], int], _Latest] = {}
        """Per resource kind and no-alias argument (by `id`)."""
        self._noalias: dict[int, bool] = {}
        self._values: list[SSAValue] = []
        """The values `_noalias` holds the `id` of, kept alive."""

    def barrier(self, new: int) -> bool:
        """An op with unknown effects, ordered against every memory access."""
        if new < self._latest_op:
            return False
        self._latest_op = self._latest_barrier = new
        return True

    def access(
        self,
        kind: AccessKind,
        resource: type[Resource],
        value: SSAValue | None,
        new: int,
    ) -> bool:
        """An access (of `value`, None when unknown) at new position `new`."""
        if new < self._latest_barrier:
            return False
        kind_index = _READ if kind is AccessKind.READ else _WRITE
        latest = self._per_resource.get(resource)
        if latest is None:
            latest = self._per_resource[resource] = ([-1, -1], [-1, -1])
        every, aliasing = latest
        if value is not None and self._is_noalias(value):
            # Only the same argument, and what may alias anything.
            own = self._per_argument.get((resource, id(value)))
            if own is None:
                own = self._per_argument[resource, id(value)] = [-1, -1]
            if _goes_before(new, kind_index, own) or _goes_before(
                new, kind_index, aliasing
            ):
                return False
            own[kind_index] = max(own[kind_index], new)
        else:
            if _goes_before(new, kind_index, every):
                return False
            aliasing[kind_index] = max(aliasing[kind_index], new)
        every[kind_index] = max(every[kind_index], new)
        self._latest_op = max(self._latest_op, new)
        return True

    def _is_noalias(self, value: SSAValue) -> bool:
        noalias = self._noalias.get(id(value))
        if noalias is None:
            noalias = self._noalias[id(value)] = is_noalias_argument(value)
            self._values.append(value)
        return noalias


def _goes_before(new: int, kind_index: int, latest: _Latest) -> bool:
    """Whether an access at `new` goes before an earlier one it conflicts with."""
    # A read conflicts with earlier writes; a write with every earlier access.
    return new < latest[_WRITE] or (kind_index == _WRITE and new < latest[_READ])
