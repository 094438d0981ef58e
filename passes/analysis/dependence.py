"""
The dependence graph of one block: which top-level ops must stay before which.

Edges go from an earlier op A to a later op B of the block (its terminator
excluded):

* SSA: B, or an op nested in B, uses a result of A.
* Memory: A and B, or ops nested in them, access the same memory, at least one
  of them writes, and their windows are not provably disjoint (`windows.py`).

Memory effects come from xDSL's generic `MemoryEffect` traits: an op with
`RecursiveMemoryEffect` has the effects of the ops nested in it, and an op
without effect information (a call, an unregistered op), even nested, is a
barrier ordered against every memory access. Accesses conflict only within
one kind of resource; all accesses to one non-default resource kind (e.g. the
cross-core channels, both directions) keep their order. Tensors follow the
aliasing rule of the dialect: two different `!pypto.tensor` arguments of a
`func.func` never alias, any other memory object may alias any other.

Building the graph is near-linear: accesses are visited in program order
against a *frontier* of earlier accesses, indexed per location and dimension
by symbolic offset and interval start. A write drops from the frontier every
earlier access of the same location it provably covers (any access ordered
after such an access is also ordered after the write, so the dependence
still holds transitively), and a barrier drops everything. A query only
visits entries that may overlap in its most selective dimension, or entries
that conflict anyway, so the cost is `O((N + E) log N)` for N accesses and E
edges in ordinary code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Protocol, cast

from sortedcontainers import SortedList
from xdsl.dialects import func
from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import (
    DefaultResource,
    EffectInstance,
    IsTerminator,
    MemoryEffect,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    Resource,
)

from passes.analysis.windows import (
    ANYWHERE,
    LinearForms,
    Symbolic,
    Window,
    WindowDim,
    access_window,
)
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.types import TensorType


class AccessKind(Enum):
    """Whether an access reads or writes (allocations and frees count as writes)."""

    READ = "read"
    WRITE = "write"


@dataclass(frozen=True)
class MemoryAccess:
    """One memory effect of an op or of an op nested in it."""

    kind: AccessKind
    resource: Resource
    value: SSAValue | None
    """The memory object (e.g. a tensor), None when unknown."""
    window: Window = ANYWHERE


class DependenceKind(Enum):
    """Why an op must stay after another one."""

    SSA = "uses"
    READ_AFTER_WRITE = "read after write"
    WRITE_AFTER_READ = "write after read"
    WRITE_AFTER_WRITE = "write after write"
    UNKNOWN_EFFECTS = "unknown memory effects"


_MEMORY_KINDS = {
    (AccessKind.WRITE, AccessKind.READ): DependenceKind.READ_AFTER_WRITE,
    (AccessKind.READ, AccessKind.WRITE): DependenceKind.WRITE_AFTER_READ,
    (AccessKind.WRITE, AccessKind.WRITE): DependenceKind.WRITE_AFTER_WRITE,
}


def describe_value(value: SSAValue) -> str:
    """`%name` when the value has a name hint, else what defines it."""
    if value.name_hint is not None:
        return f"%{value.name_hint}"
    if isinstance(value, OpResult):
        return f"result #{value.index} of {value.op.name}"
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return "an erased value"


@dataclass(frozen=True)
class Dependence:
    """The reason of an edge: a used result, or a memory conflict."""

    kind: DependenceKind
    value: SSAValue | None = None
    """SSA: the used result. Memory: the object the later op accesses, if known."""
    resource: Resource | None = None
    """Memory: the resource the later op accesses (None for the default one)."""

    def __str__(self) -> str:
        text = self.kind.value
        if self.value is not None:
            text += f" {'' if self.kind is DependenceKind.SSA else 'of '}"
            text += describe_value(self.value)
        if self.resource is not None:
            text += f" on {self.resource.name()}"
        return text


class DependenceGraph:
    """
    The dependence DAG of the top-level ops of a block (terminator excluded).
    Every edge goes forward in program order; `predecessors` gives the reasons.
    """

    block: Block
    ops: tuple[Operation, ...]
    num_comparisons: int
    """Candidate pairs examined for memory conflicts: the cost of the build."""

    def __init__(self, block: Block, ops: Sequence[Operation]):
        self.block = block
        self.ops = tuple(ops)
        self.num_comparisons = 0
        self._index = {op: index for index, op in enumerate(self.ops)}
        self._predecessors: list[dict[int, list[Dependence]]] = [{} for _ in ops]
        self._successors: list[list[int]] = [[] for _ in ops]

    @classmethod
    def build(
        cls, block: Block, summaries: OpSummaries | None = None
    ) -> DependenceGraph:
        """
        The SSA and memory dependences among the top-level ops of `block`;
        share `summaries` to analyse the blocks of a nest inside out.
        """
        graph = cls(block, schedulable_ops(block))
        summaries = summaries if summaries is not None else OpSummaries()
        frontier = _MemoryFrontier(graph.add_edge)
        for index, op in enumerate(graph.ops):
            for value in summaries.uses(op):
                owner = value.owner
                source = (
                    graph._index.get(owner) if isinstance(owner, Operation) else None
                )
                if source is not None and source < index:
                    graph.add_edge(source, index, Dependence(DependenceKind.SSA, value))
            frontier.visit(index, summaries.accesses(op))
        graph.num_comparisons = frontier.num_comparisons
        return graph

    def add_edge(self, source: int, target: int, reason: Dependence) -> None:
        """Record that op `target` must stay after op `source` (indices in `ops`)."""
        reasons = self._predecessors[target].get(source)
        if reasons is None:
            self._predecessors[target][source] = [reason]
            self._successors[source].append(target)
        elif reason not in reasons:
            reasons.append(reason)

    def index(self, op: Operation) -> int:
        return self._index[op]

    def predecessor_indices(self, index: int) -> Mapping[int, Sequence[Dependence]]:
        return self._predecessors[index]

    def successor_indices(self, index: int) -> Sequence[int]:
        return self._successors[index]

    def predecessors(self, op: Operation) -> dict[Operation, tuple[Dependence, ...]]:
        """The ops `op` depends on directly, with the reasons."""
        return {
            self.ops[source]: tuple(reasons)
            for source, reasons in self._predecessors[self._index[op]].items()
        }

    def successors(self, op: Operation) -> tuple[Operation, ...]:
        """The ops that depend directly on `op`."""
        return tuple(self.ops[target] for target in self._successors[self._index[op]])

    @property
    def num_edges(self) -> int:
        return sum(len(sources) for sources in self._predecessors)


def schedulable_ops(block: Block) -> list[Operation]:
    """
    The ops of `block` that may be reordered: all but a last op that is (or,
    being unregistered, may be) a terminator.
    """
    ops = list(block.ops)
    if ops and (ops[-1].has_trait(IsTerminator) or isinstance(ops[-1], UnregisteredOp)):
        ops.pop()
    return ops


# --------------------------------------------------------------------------- #
# Memory effects
# --------------------------------------------------------------------------- #


def memory_accesses(op: Operation, forms: LinearForms) -> Sequence[MemoryAccess] | None:
    """
    The distinct memory accesses of `op` and of the ops nested in it, as seen
    from outside `op`, or None when some effect is unknown. A window offset
    that depends on a value defined inside `op` is unknown in that dimension,
    so the nested accesses of a loop often coincide: they count once.
    """
    return OpSummaries(forms).accesses(op)


class OpSummaries:
    """
    What the dependence graph needs of an op and the ops nested in it, as seen
    from outside: the values they use and their memory accesses. Memoized: an
    op with regions combines the summaries of the ops in its blocks, so the
    blocks of a nest analysed inside out visit each nested op once, not once
    per enclosing block. Valid while the summarized ops keep their contents
    (moving ops within a block, or changing attributes, is fine).
    """

    def __init__(self, forms: LinearForms | None = None):
        self.forms = forms if forms is not None else LinearForms()
        self._uses: dict[Operation, tuple[SSAValue, ...]] = {}
        self._accesses: dict[Operation, tuple[MemoryAccess, ...] | None] = {}

    def uses(self, op: Operation) -> Sequence[SSAValue]:
        """The distinct values used by `op` or an op nested in it, defined outside `op`."""
        if op not in self._uses:
            values = list(op.operands)
            for nested in _nested_ops(op):
                values.extend(
                    value
                    for value in self.uses(nested)
                    if not _is_defined_directly_in(value, op)
                )
            self._uses[op] = tuple(dict.fromkeys(values))
        return self._uses[op]

    def accesses(self, op: Operation) -> Sequence[MemoryAccess] | None:
        """The accesses of `op`, as in `memory_accesses`."""
        if op not in self._accesses:
            self._accesses[op] = self._compute_accesses(op)
        return self._accesses[op]

    def _compute_accesses(self, op: Operation) -> tuple[MemoryAccess, ...] | None:
        traits = op.get_traits_of_type(MemoryEffect)
        if not traits:
            return None
        accesses: list[MemoryAccess] = []
        for trait in traits:
            if isinstance(trait, RecursiveMemoryEffect):
                for nested in _nested_ops(op):
                    inner = self.accesses(nested)
                    if inner is None:
                        return None
                    accesses.extend(_seen_from_outside(a, op) for a in inner)
                continue
            effects = trait.get_effects(op)
            if effects is None:
                return None
            accesses.extend(_access(op, effect, self.forms) for effect in effects)
        return tuple(dict.fromkeys(accesses))


def _nested_ops(op: Operation) -> Iterator[Operation]:
    """The ops directly in the blocks of `op`."""
    for region in op.regions:
        for block in region.blocks:
            yield from block.ops


def _is_defined_directly_in(value: SSAValue, op: Operation) -> bool:
    """Whether `value` is an argument of a block of `op`, or a result of an op in one."""
    owner = value.owner
    block = owner if isinstance(owner, Block) else owner.parent_block()
    return block is not None and block.parent_op() is op


def _access(op: Operation, effect: EffectInstance, forms: LinearForms) -> MemoryAccess:
    kind = AccessKind.READ if effect.kind is MemoryEffectKind.READ else AccessKind.WRITE
    value = effect.value if isinstance(effect.value, SSAValue) else None
    window = ANYWHERE
    if (
        value is not None
        and isinstance(op, TensorWindowAccess)
        and value is op.accessed_tensor
    ):
        window = access_window(op, forms)
    return MemoryAccess(kind, effect.resource, value, window)


def _seen_from_outside(access: MemoryAccess, op: Operation) -> MemoryAccess:
    """An access nested in `op`, with the offsets defined inside `op` unknown."""
    window = access.window.hiding(lambda value: op.is_ancestor(value.owner))
    return access if window is access.window else replace(access, window=window)


def is_noalias_argument(value: SSAValue) -> bool:
    """Whether `value` is a `!pypto.tensor` argument of a `func.func`."""
    if not isinstance(value, BlockArgument) or not isinstance(value.type, TensorType):
        return False
    parent = value.block.parent_op()
    return isinstance(parent, func.FuncOp) and value.block is parent.body.blocks.first


# --------------------------------------------------------------------------- #
# The frontier of earlier accesses
# --------------------------------------------------------------------------- #

_Location = tuple[type[Resource], SSAValue | None]
"""Where an access goes: the kind of resource and the memory object, if known."""


@dataclass(frozen=True)
class _Entry:
    """An access of the frontier."""

    node: int
    access: MemoryAccess
    key: int
    """Unique, in program order: breaks ties in the sorted indices."""

    @property
    def location(self) -> _Location:
        return _location(self.access)


def _location(access: MemoryAccess) -> _Location:
    return type(access.resource), access.value


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
    """The frontier entries of one location and access kind, indexed per dimension."""

    def __init__(self) -> None:
        self.entries: dict[int, _Entry] = {}
        self._unindexed: dict[int, _Entry] = {}
        self._rank: int | None = None
        self._dims: list[dict[Symbolic | None, _Group]] = []

    def _is_indexable(self, window: Window) -> bool:
        return not window.is_anywhere and self._rank in (None, window.rank)

    def add(self, entry: _Entry) -> None:
        self.entries[entry.key] = entry
        window = entry.access.window
        if not self._is_indexable(window):
            self._unindexed[entry.key] = entry
            return
        if self._rank is None:
            self._rank = window.rank
            self._dims = [{} for _ in window.dims]
        for groups, dim in zip(self._dims, window.dims, strict=True):
            symbolic = None if dim.offset is None else dim.offset.symbolic
            groups.setdefault(symbolic, _Group()).add(dim, entry.key)

    def remove(self, entry: _Entry) -> None:
        del self.entries[entry.key]
        if self._unindexed.pop(entry.key, None) is not None:
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

        d, dim, symbolic = min(known, key=lambda k: num_candidates(*k))
        found = list(self._unindexed.values())
        for group_symbolic, group in self._dims[d].items():
            if group_symbolic == symbolic:
                found.extend(self.entries[key] for key in group.overlapping(dim))
            else:
                found.extend(self.entries[key] for key in group.entry_keys())
        return found


@dataclass
class _MemoryFrontier:
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
        if accesses and self._barrier is not None:
            self.add_edge(
                self._barrier, node, Dependence(DependenceKind.UNKNOWN_EFFECTS)
            )
        same_location = [list(self._add_conflict_edges(node, a)) for a in accesses]
        for access, conflicting in zip(accesses, same_location, strict=True):
            if access.kind is AccessKind.WRITE:
                for entry in conflicting:
                    if access.window.covers(entry.access.window):
                        self._remove(entry)
        for access in accesses:
            self._add(_Entry(node, access, self._next_key))
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

    def _add_conflict_edges(self, node: int, access: MemoryAccess) -> Iterator[_Entry]:
        """Add an edge from each conflicting entry; yield those of the same location."""
        location = _location(access)
        kinds = (
            (AccessKind.WRITE,)
            if access.kind is AccessKind.READ
            else (AccessKind.READ, AccessKind.WRITE)
        )
        for kind in kinds:
            reason = Dependence(
                _MEMORY_KINDS[kind, access.kind],
                access.value,
                None if location[0] is DefaultResource else access.resource,
            )
            same = self._indices.get((location, kind))
            for entry in same.candidates(access.window) if same else ():
                self.num_comparisons += 1
                if not access.window.is_disjoint_from(entry.access.window):
                    self.add_edge(entry.node, node, reason)
                    yield entry
            for index in self._aliasing_indices(location, kind):
                for entry in index.entries.values():
                    self.num_comparisons += 1
                    self.add_edge(entry.node, node, reason)

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
        return self._nonempty.setdefault(key, {})

    def _is_noalias(self, location: _Location) -> bool:
        noalias = self._noalias.get(location)
        if noalias is None:
            value = location[1]
            noalias = value is not None and is_noalias_argument(value)
            self._noalias[location] = noalias
        return noalias

    def _add(self, entry: _Entry) -> None:
        kind = entry.access.kind
        index = self._indices.setdefault((entry.location, kind), _WindowIndex())
        index.add(entry)
        self._group(entry.location, kind)[entry.location] = index

    def _remove(self, entry: _Entry) -> None:
        kind = entry.access.kind
        index = self._indices[entry.location, kind]
        if entry.key not in index.entries:
            return  # already covered by another write of the same op
        index.remove(entry)
        if not index.entries:
            del self._group(entry.location, kind)[entry.location]
