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

from passes.analysis.frontier import is_noalias
from passes.analysis.summaries import (
    CLASS_EFFECTS_OF,
    AccessKind,
    ClassEffects,
    MemoryAccess,
    OpSummaries,
    class_effects,
    window_access_kind,
)
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.xdsl_internals import operands

_Latest = list[int]
"""The latest new position among the earlier reads, and among the earlier writes."""
_Location = tuple[_Latest | None, _Latest, _Latest]
"""Of a location: its own (None when it may alias anything); of its resource kind,
every access's and those that may alias anything."""
_READ, _WRITE = 0, 1
_JUMPS, _JUMPED_OVER = 1, 2
"""The roles of an op: it goes before an earlier op; a later op goes before it."""


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

    Only an op that goes before an earlier op (it *jumps*) can break a
    dependence, and only with an op it jumps over: the others are not even
    summarized. When no jumping op has memory effects (in a nest, an outer
    block whose scalars move above its inner loops), no access is looked at.
    """
    count = len(ops)
    position = [0] * count
    for new, old in enumerate(order):
        position[old] = new
    jumpers: list[int] = []
    latest_earlier = -1
    for index, new in enumerate(position):
        if new > latest_earlier:
            latest_earlier = new
        else:
            jumpers.append(index)
    # Memory first: where it fails (an in-place body), it fails early.
    slots = bool(ops) and footprints.slots_in(ops[0].parent)
    if any(
        class_effects(type(ops[index])) is not ClassEffects.NONE
        or (slots and footprints.slot_accesses(ops[index]))
        for index in jumpers
    ) and not _keeps_memory_order(ops, position, jumpers, footprints, slots):
        return False
    return _keeps_uses(ops, position, jumpers, summaries)


def _keeps_memory_order(
    ops: Sequence[Operation],
    position: Sequence[int],
    jumpers: Sequence[int],
    footprints: OpSummaries,
    slots: bool,
) -> bool:
    """
    Whether no jumping op goes before an op it jumps over and may conflict
    with (`slots`: the ops may access allocation slots).
    """
    count = len(ops)
    role = [0] * count  # _JUMPS | _JUMPED_OVER
    for index in jumpers:
        role[index] = _JUMPS
    earliest_later = count
    for index in range(count - 1, -1, -1):
        new = position[index]
        if new > earliest_later:
            role[index] |= _JUMPED_OVER
        else:
            earliest_later = new
    memory = _MemoryOrder()
    window_conflicts, add_window = memory.window_conflicts, memory.add_window
    for index, op in enumerate(ops):
        if not (op_role := role[index]):
            continue
        op_type = type(op)
        effects = CLASS_EFFECTS_OF(op_type) or class_effects(op_type)
        in_slots = slots and bool(footprints.slot_accesses(op))
        if effects is ClassEffects.NONE and not in_slots:
            continue
        new = position[index]
        kind = (
            AccessKind.READ
            if effects is ClassEffects.WINDOW_READ
            else window_access_kind(op_type)
        )
        if kind is None or in_slots:
            if not memory.keeps_op(footprints.accesses(op), new, op_role):
                return False
            continue
        # A window access, the common case: no summary, the tensor off the op.
        tensor = cast(TensorWindowAccess, op).accessed_tensor
        if op_role & _JUMPS and window_conflicts(kind, tensor, new):
            return False
        if op_role & _JUMPED_OVER:
            add_window(kind, tensor, new)
    return True


def _keeps_uses(
    ops: Sequence[Operation],
    position: Sequence[int],
    jumpers: Sequence[int],
    summaries: OpSummaries,
) -> bool:
    """Whether every jumping op stays after the earlier ops whose results it uses."""
    index_of = {id(op): index for index, op in enumerate(ops)}.get
    for index in jumpers:
        op = ops[index]
        new = position[index]
        # As `DependenceGraph.build`: the operands of region-free ops, the
        # uses from outside of the others, edges from earlier ops only.
        for value in summaries.uses(op) if op.regions else operands(op):
            if type(value) is not OpResult:
                continue
            source = index_of(id(value.op))
            if source is not None and source < index and position[source] > new:
                return False
    return True


class _MemoryOrder:
    """
    The accesses of the ops jumped over so far by the latest new position of
    each kind per location: a jumping op keeps the order if it goes after
    every earlier access it may conflict with.
    """

    def __init__(self) -> None:
        self._latest_op = -1
        """Of the ops with memory accesses or unknown effects."""
        self._latest_barrier = -1
        self._per_resource: dict[type[Resource], tuple[_Latest, _Latest]] = {}
        """Per resource kind: of all its accesses; of those that may alias anything."""
        self._locations: dict[type[Resource], dict[int, _Location]] = {}
        """By resource kind, by the `id` of the value."""
        self._default = self._locations[DefaultResource] = {}
        """Those of the default resource: of windows."""
        self._values: list[SSAValue | None] = []
        """The values `_locations` holds the `id` of, kept alive."""

    def keeps_op(
        self, accesses: Sequence[MemoryAccess] | None, new: int, role: int
    ) -> bool:
        """
        Whether an op with these accesses (None: unknown effects), at `new`,
        goes after what it may conflict with if it jumps; recorded if it is
        jumped over.
        """
        if accesses is None:  # ordered against every memory access
            if role & _JUMPS and new < self._latest_op:
                return False
            if role & _JUMPED_OVER:
                self._latest_op = max(self._latest_op, new)
                self._latest_barrier = max(self._latest_barrier, new)
            return True
        for kind, resource, value, _ in accesses:
            if role & _JUMPS and self.conflicts(kind, type(resource), value, new):
                return False
        if role & _JUMPED_OVER:
            for kind, resource, value, _ in accesses:
                self.add(kind, type(resource), value, new)
        return True

    def conflicts(
        self,
        kind: AccessKind,
        resource: type[Resource],
        value: SSAValue | None,
        new: int,
    ) -> bool:
        """Whether an access at `new` goes before an earlier one it may conflict with."""
        return self._conflicts(self._location(resource, value), kind, new)

    def window_conflicts(self, kind: AccessKind, tensor: SSAValue, new: int) -> bool:
        """`conflicts` of a window access (the default resource): asked per op."""
        location = self._default.get(id(tensor)) or self._location(
            DefaultResource, tensor
        )
        return self._conflicts(location, kind, new)

    def _conflicts(self, location: _Location, kind: AccessKind, new: int) -> bool:
        if new < self._latest_barrier:
            return True
        own, every, aliasing = location
        if own is None:  # may alias anything
            return _goes_before(new, kind, every)
        # Only the same argument, and what may alias anything.
        return _goes_before(new, kind, own) or _goes_before(new, kind, aliasing)

    def add(
        self,
        kind: AccessKind,
        resource: type[Resource],
        value: SSAValue | None,
        new: int,
    ) -> None:
        """Record an access at `new`."""
        self._record(self._location(resource, value), kind, new)

    def add_window(self, kind: AccessKind, tensor: SSAValue, new: int) -> None:
        """`add` of a window access (the default resource): asked per op."""
        location = self._default.get(id(tensor)) or self._location(
            DefaultResource, tensor
        )
        self._record(location, kind, new)

    def _record(self, location: _Location, kind: AccessKind, new: int) -> None:
        own, every, aliasing = location
        slot = _READ if kind is AccessKind.READ else _WRITE
        latest = aliasing if own is None else own
        latest[slot] = max(latest[slot], new)
        every[slot] = max(every[slot], new)
        self._latest_op = max(self._latest_op, new)

    def _location(self, resource: type[Resource], value: SSAValue | None) -> _Location:
        locations = self._locations.get(resource)
        if locations is None:
            locations = self._locations[resource] = {}
        location = locations.get(id(value))
        if location is None:
            every, aliasing = self._per_resource.setdefault(
                resource, ([-1, -1], [-1, -1])
            )
            noalias = value is not None and is_noalias(value)
            own = [-1, -1] if noalias else None
            location = locations[id(value)] = (own, every, aliasing)
            self._values.append(value)
        return location


def _goes_before(new: int, kind: AccessKind, latest: _Latest) -> bool:
    """Whether an access at `new` goes before an earlier one it conflicts with."""
    # A read conflicts with earlier writes; a write with every earlier access.
    return new < latest[_WRITE] or (kind is AccessKind.WRITE and new < latest[_READ])
