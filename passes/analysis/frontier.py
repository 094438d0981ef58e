"""
The frontier of earlier memory accesses, which finds the conflicts of each new
access in near-linear time.

Accesses conflict only within one kind of resource; all accesses to one
non-default resource kind (e.g. the cross-core channels, both directions)
keep their order. Tensors follow the aliasing rule of the dialect: two
different `!pypto.tensor` arguments of a `func.func` never alias, any other
memory object may alias any other; two declared allocations never alias.
Windows of the same object conflict unless provably disjoint (`windows.py`;
the slots of an allocation: `slots.py`).

Accesses are visited in program order against the frontier, indexed per
location and dimension by symbolic offset and interval start. A write drops
from the frontier every earlier access of the same location it provably
covers (any access ordered after such an access is also ordered after the
write, so the dependence still holds transitively), and a barrier (unknown
effects) drops everything. A query only visits entries that may overlap in
its most selective dimension, or entries that conflict anyway, so the cost is
`O((N + E) log N)` for N accesses and E edges in ordinary code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol, cast

from sortedcontainers import SortedList
from xdsl.dialects import func
from xdsl.ir import BlockArgument, SSAValue
from xdsl.traits import DefaultResource, Resource

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.summaries import AccessKind, MemoryAccess
from passes.analysis.windows import Symbolic, Window, WindowDim
from pypto_dialect.types import AllocType, TensorType

_CONFLICTING_KINDS = {
    AccessKind.READ: (AccessKind.WRITE,),
    AccessKind.WRITE: (AccessKind.READ, AccessKind.WRITE),
}
"""The kinds of earlier accesses an access of a kind conflicts with."""
_MEMORY_KINDS = {
    (AccessKind.WRITE, AccessKind.READ): DependenceKind.READ_AFTER_WRITE,
    (AccessKind.READ, AccessKind.WRITE): DependenceKind.WRITE_AFTER_READ,
    (AccessKind.WRITE, AccessKind.WRITE): DependenceKind.WRITE_AFTER_WRITE,
}


def is_noalias_argument(value: SSAValue) -> bool:
    """Whether `value` is a `!pypto.tensor` argument of a `func.func`."""
    if not isinstance(value, BlockArgument) or not isinstance(value.type, TensorType):
        return False
    parent = value.block.parent_op()
    return isinstance(parent, func.FuncOp) and value.block is parent.body.blocks.first


def is_noalias(value: SSAValue) -> bool:
    """
    Whether `value` names memory no other value of its kind names: a
    `!pypto.tensor` argument of a `func.func`, or a declared allocation.
    """
    return isinstance(value.type, AllocType) or is_noalias_argument(value)


class BlockWrites:
    """
    The writes of a block, gathered before its accesses are visited. In a
    block without unknown effects, a read that no write may alias conflicts
    with nothing: the frontier need not see it (nor its window be computed).
    """

    def __init__(self) -> None:
        self.has_barrier = False
        self._written: dict[type[Resource], set[SSAValue]] = {}
        """The no-alias arguments written, per resource kind."""
        self._written_anything: set[type[Resource]] = set()
        """The resource kinds with a write to an object that may alias any other."""
        self._noalias: dict[SSAValue, bool] = {}

    def _is_noalias(self, value: SSAValue) -> bool:
        noalias = self._noalias.get(value)
        if noalias is None:
            noalias = self._noalias[value] = is_noalias(value)
        return noalias

    def add(self, accesses: Sequence[MemoryAccess] | None) -> None:
        """Record the writes among the accesses of an op (None: unknown effects)."""
        if accesses is None:
            self.has_barrier = True
            return
        for access in accesses:
            if access.kind is not AccessKind.WRITE:
                continue
            resource, value = type(access.resource), access.value
            if value is not None and self._is_noalias(value):
                self._written.setdefault(resource, set()).add(value)
            else:
                self._written_anything.add(resource)

    def may_write(self, value: SSAValue) -> bool:
        """Whether a write of the block may touch `value` (of the default resource)."""
        if self.has_barrier or DefaultResource in self._written_anything:
            return True
        written = self._written.get(DefaultResource)
        if not written:
            return False
        return value in written or not self._is_noalias(value)


_Location = tuple[type[Resource], SSAValue | None]
"""Where an access goes: the kind of resource and the memory object, if known."""


class _Entry(NamedTuple):
    """An access of the frontier (a named tuple: one is made per access)."""

    node: int
    access: MemoryAccess
    key: int
    """Unique, in program order: breaks ties in the sorted indices."""
    location: _Location


class _SortedStarts(Protocol):
    """The part of `sortedcontainers.SortedList` used here, typed."""

    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[tuple[int, int]]: ...
    def add(self, value: tuple[int, int], /) -> None: ...
    def remove(self, value: tuple[int, int], /) -> None: ...
    def bisect_left(self, value: tuple[int, ...], /) -> int: ...
    def irange(
        self,
        minimum: tuple[int, ...],
        maximum: tuple[int, ...],
        inclusive: tuple[bool, bool],
    ) -> Iterator[tuple[int, int]]: ...


class _Group:
    """The entries of one dimension that share a symbolic offset, by interval start."""

    def __init__(self) -> None:
        self._starts = cast(_SortedStarts, SortedList())
        self._max_extent = 0

    def __len__(self) -> int:
        return len(self._starts)

    def add(self, dim: WindowDim, key: int) -> None:
        self._starts.add((dim.start, key))
        self._max_extent = max(self._max_extent, dim.extent)

    def remove(self, dim: WindowDim, key: int) -> None:
        self._starts.remove((dim.start, key))

    def entry_keys(self) -> Iterator[int]:
        return (key for _, key in self._starts)

    def _bounds(self, dim: WindowDim) -> tuple[tuple[int], tuple[int]]:
        # An interval [s, s + e) overlaps [start, end) iff start - e < s < end.
        return (dim.start - self._max_extent + 1,), (dim.end,)

    def count_overlapping(self, dim: WindowDim) -> int:
        """An upper bound of the number of entries overlapping `dim`."""
        low, high = self._bounds(dim)
        return self._starts.bisect_left(high) - self._starts.bisect_left(low)

    def overlapping(self, dim: WindowDim) -> Iterator[int]:
        """The entries counted by `count_overlapping`."""
        low, high = self._bounds(dim)
        return (key for _, key in self._starts.irange(low, high, (True, False)))


class _WindowIndex:
    """
    The frontier entries of one location and access kind, indexed per
    dimension. The index is built at the first query: the accesses of a
    location that no later access can conflict with (e.g. loads of a tensor
    the block never writes) are never indexed.
    """

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}
        self._indexed = False
        self._unindexed: dict[int, _Entry] = {}
        self._rank: int | None = None
        self._dims: list[dict[Symbolic | None, _Group]] = []

    def _is_indexable(self, window: Window) -> bool:
        return not window.is_anywhere and self._rank in (None, len(window.dims))

    def add(self, entry: _Entry) -> None:
        self.entries[entry.key] = entry
        if self._indexed:
            self._index(entry)

    def _index(self, entry: _Entry) -> None:
        window = entry.access.window
        if not self._is_indexable(window):
            self._unindexed[entry.key] = entry
            return
        if self._rank is None:
            self._rank = window.rank
            self._dims = [{} for _ in window.dims]
        for groups, dim in zip(self._dims, window.dims, strict=True):
            symbolic = None if dim.offset is None else dim.offset.symbolic
            group = groups.get(symbolic)
            if group is None:
                group = groups[symbolic] = _Group()
            group.add(dim, entry.key)

    def remove(self, entry: _Entry) -> None:
        del self.entries[entry.key]
        if not self._indexed or self._unindexed.pop(entry.key, None) is not None:
            return
        for groups, dim in zip(self._dims, entry.access.window.dims, strict=True):
            symbolic = None if dim.offset is None else dim.offset.symbolic
            group = groups[symbolic]
            group.remove(dim, entry.key)
            if not group:
                del groups[symbolic]

    def candidates(self, window: Window) -> list[_Entry]:
        """
        A superset of the entries whose window is not provably disjoint from
        `window`: those that may overlap it in its most selective dimension.
        """
        if not self._indexed:
            self._indexed = True
            for entry in self.entries.values():
                self._index(entry)
        if self._rank is None or not self._is_indexable(window):
            return list(self.entries.values())
        num_indexed = len(self.entries) - len(self._unindexed)
        known = [
            (d, dim, dim.offset.symbolic)
            for d, dim in enumerate(window.dims)
            if dim.offset is not None
        ]

        def num_candidates(d: int, dim: WindowDim, symbolic: Symbolic) -> int:
            group = self._dims[d].get(symbolic)
            if group is None:
                return num_indexed
            return num_indexed - len(group) + group.count_overlapping(dim)

        # 1-D windows (the common case) have one dimension to choose from.
        d, dim, symbolic = (
            known[0]
            if len(known) == 1
            else min(known, key=lambda k: num_candidates(*k))
        )
        found = list(self._unindexed.values())
        for group_symbolic, group in self._dims[d].items():
            if group_symbolic == symbolic:
                found.extend(self.entries[key] for key in group.overlapping(dim))
            else:
                found.extend(self.entries[key] for key in group.entry_keys())
        return found


@dataclass
class MemoryFrontier:
    """The earlier accesses a new access may conflict with, and the edges found."""

    add_edge: Callable[[int, int, Dependence], None]
    num_comparisons: int = 0
    _indices: dict[tuple[_Location, AccessKind], _WindowIndex] = field(
        default_factory=dict[tuple[_Location, AccessKind], _WindowIndex]
    )
    _nonempty: dict[
        tuple[type[Resource], bool, AccessKind], dict[_Location, _WindowIndex]
    ] = field(
        default_factory=dict[
            tuple[type[Resource], bool, AccessKind], dict[_Location, _WindowIndex]
        ]
    )
    """The non-empty indices by resource kind, no-alias argument or not, access kind."""
    _noalias: dict[_Location, bool] = field(default_factory=dict[_Location, bool])
    _barrier: int | None = None
    _next_key: int = 0

    def visit(self, node: int, accesses: Sequence[MemoryAccess] | None) -> None:
        """Add the edges into op `node` with these accesses (None: unknown effects)."""
        if accesses is None:
            self._visit_barrier(node)
            return
        if not accesses:
            return
        if self._barrier is not None:
            self.add_edge(
                self._barrier, node, Dependence(DependenceKind.UNKNOWN_EFFECTS)
            )
        locations = [(type(access.resource), access.value) for access in accesses]
        same_location = [
            self._add_conflict_edges(node, access, location)
            for access, location in zip(accesses, locations, strict=True)
        ]
        for access, conflicting in zip(accesses, same_location, strict=True):
            if access.kind is AccessKind.WRITE:
                for entry in conflicting:
                    if access.window.covers(entry.access.window):
                        self._remove(entry)
        for access, location in zip(accesses, locations, strict=True):
            # `tuple.__new__`: the named tuple's `__new__` is a Python call.
            entry = (node, access, self._next_key, location)
            self._add(tuple.__new__(_Entry, entry))  # pyright: ignore[reportUnknownMemberType]
            self._next_key += 1

    def _visit_barrier(self, node: int) -> None:
        reason = Dependence(DependenceKind.UNKNOWN_EFFECTS)
        if self._barrier is not None:
            self.add_edge(self._barrier, node, reason)
        for index in self._indices.values():
            for entry in index.entries.values():
                self.add_edge(entry.node, node, reason)
        self._indices.clear()
        self._nonempty.clear()
        self._barrier = node

    def _add_conflict_edges(
        self, node: int, access: MemoryAccess, location: _Location
    ) -> list[_Entry]:
        """Add an edge from each conflicting entry; return those of the same location."""
        found: list[_Entry] = []
        window = access.window
        for kind in _CONFLICTING_KINDS[access.kind]:
            reason: Dependence | None = None
            same = self._indices.get((location, kind))
            for entry in same.candidates(window) if same else ():
                self.num_comparisons += 1
                if not window.is_disjoint_from(entry.access.window):
                    reason = reason or self._reason(kind, access, location)
                    self.add_edge(entry.node, node, reason)
                    found.append(entry)
            for index in self._aliasing_indices(location, kind):
                reason = reason or self._reason(kind, access, location)
                for entry in index.entries.values():
                    self.num_comparisons += 1
                    self.add_edge(entry.node, node, reason)
        return found

    @staticmethod
    def _reason(
        earlier: AccessKind, access: MemoryAccess, location: _Location
    ) -> Dependence:
        """Why `access` stays after an earlier access of kind `earlier`."""
        return Dependence(
            _MEMORY_KINDS[earlier, access.kind],
            access.value,
            None if location[0] is DefaultResource else access.resource,
        )

    def _aliasing_indices(
        self, location: _Location, kind: AccessKind
    ) -> Iterator[_WindowIndex]:
        """The non-empty indices of other locations that may alias `location`."""
        resource = location[0]
        noalias = self._is_noalias(location)
        for other_noalias in (False,) if noalias else (False, True):
            for other, index in self._nonempty.get(
                (resource, other_noalias, kind), {}
            ).items():
                if other != location:
                    yield index

    def _group(
        self, location: _Location, kind: AccessKind
    ) -> dict[_Location, _WindowIndex]:
        key = (location[0], self._is_noalias(location), kind)
        group = self._nonempty.get(key)
        if group is None:  # not `setdefault`: it would build a dict per call
            group = self._nonempty[key] = {}
        return group

    def _is_noalias(self, location: _Location) -> bool:
        noalias = self._noalias.get(location)
        if noalias is None:
            value = location[1]
            noalias = value is not None and is_noalias(value)
            self._noalias[location] = noalias
        return noalias

    def _add(self, entry: _Entry) -> None:
        kind = entry.access.kind
        index = self._indices.get((entry.location, kind))
        if index is None:  # not `setdefault`: it would build an index per call
            index = self._indices[entry.location, kind] = _WindowIndex()
            self._group(entry.location, kind)[entry.location] = index
        elif not index.entries:  # emptied by covering writes: non-empty again
            self._group(entry.location, kind)[entry.location] = index
        index.add(entry)

    def _remove(self, entry: _Entry) -> None:
        kind = entry.access.kind
        index = self._indices[entry.location, kind]
        if entry.key not in index.entries:
            return  # already covered by another write of the same op
        index.remove(entry)
        if not index.entries:
            del self._group(entry.location, kind)[entry.location]
