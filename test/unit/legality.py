"""
A dynamic, exact legality check for passes that move or copy memory ops.

`trace_kernel` runs a kernel with an interpreter listener that records every
memory access as it happens: which op (and which run of it), read or write,
which memory location (a tensor parameter, a cross-core channel, a declared
allocation) and the concrete window, from the runtime offsets and the tile
shape (of an allocation: the runtime slot). The accesses come from the ops'
memory effects (`xdsl.traits.get_effects`) and the `TensorWindowAccess` and
`AllocationBinding` interfaces, never from op names (so the reads of a bound
tile, which are no op's effect, are not traced: `test_dependence_slots.py`
checks their order). Independent of
`passes/analysis/` by design: it checks that analysis, so it shares no code
with it.

Two checks compare the trace of a kernel before a pass with the trace after:

* `copy_violations`, for passes that copy ops (`lower-pipeline-loops`): the
  sequence of (read or write, location, window) accesses must be the same.
* `reorder_violations`, for passes that move ops (`canonicalize-io-order`):
  the k-th run of an op is the same dynamic access before and after, and every
  two accesses that conflict (same location, overlapping windows, at least one
  write) must run in the same relative order. Checked per element in one
  sweep of each trace: the order of all conflicting pairs is kept exactly
  when every access sees, for each element of its window, the same last
  writer in both traces (a write's last writer orders the writes; a read's
  pins it between the same two writes).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Operation, SSAValue
from xdsl.traits import (
    DefaultResource,
    IsTerminator,
    MemoryEffectKind,
    RecursiveMemoryEffect,
    get_effects,
)

from pypto_dialect.allocation import MAX_SLOTS
from pypto_dialect.effects import AllocationBinding, TensorWindowAccess
from pypto_dialect.interpreter import KernelArg, KernelRun, run_kernel

BARRIER = "unknown memory"
"""The location of an op with unknown effects: ordered against every access."""

Window = tuple[tuple[int, int], ...]
"""`[start, stop)` per dimension; `()` is the whole location."""


@dataclass(frozen=True)
class Access:
    """One memory access of one run of an op."""

    op: Operation
    run: int
    """How many times `op` ran before this access."""
    writes: bool
    """Whether it writes (or allocates or frees); otherwise it only reads."""
    location: str
    """`%name` of a tensor parameter, a channel's resource name, or `BARRIER`."""
    window: Window

    @property
    def what(self) -> tuple[bool, str, Window]:
        """The access without the op: whether it writes, where, which window."""
        return (self.writes, self.location, self.window)

    @property
    def instance(self) -> tuple[Operation, int, str]:
        """The dynamic access: the same before and after a pass that moves ops."""
        return (self.op, self.run, self.location)

    @property
    def index(self) -> tuple[slice, ...] | EllipsisType:
        """The window as a numpy index (a view, also of a 0-d array)."""
        if not self.window:
            return ...
        return tuple(slice(start, stop) for start, stop in self.window)

    def describe(self) -> str:
        names = [f"%{r.name_hint}" for r in self.op.results if r.name_hint]
        op = " ".join([self.op.name, *names])
        where = ", ".join(f"{start}:{stop}" for start, stop in self.window)
        window = f"[{where}]" if self.window else ""
        kind = "writes" if self.writes else "reads"
        return f"{op} (run {self.run}) {kind} {self.location}{window}"


@dataclass(frozen=True)
class Trace:
    """A kernel run and its memory accesses in execution order."""

    run: KernelRun
    accesses: tuple[Access, ...]
    shapes: Mapping[str, tuple[int, ...]]
    """The shape of every location (`()` for channels and the barrier)."""


# --------------------------------------------------------------------------- #
# Recording
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _TensorEffect:
    writes: bool
    tensor: SSAValue
    offsets: Sequence[SSAValue]
    shape: tuple[int, ...]


@dataclass(frozen=True)
class _ResourceEffect:
    writes: bool
    location: str


@dataclass(frozen=True)
class _SlotEffect:
    writes: bool
    allocation: SSAValue
    slot: SSAValue | None


_Effect = _TensorEffect | _ResourceEffect | _SlotEffect
SLOTS = (MAX_SLOTS,)
"""The shape of an allocation's location: one element per slot."""


def _op_effects(op: Operation) -> list[_Effect]:
    """
    What one run of `op` accesses. Ops with recursive effects access nothing
    themselves (the interpreter runs, and reports, the ops nested in them);
    terminators only pass values. An op with unknown effects, or with an
    effect on memory it does not name, is a barrier.
    """
    if op.has_trait(RecursiveMemoryEffect) or op.has_trait(IsTerminator):
        return []
    effects = get_effects(op)
    if effects is None:
        return [_ResourceEffect(True, BARRIER)]
    merged: dict[object, _Effect] = {}
    for effect in effects:
        if effect.kind is MemoryEffectKind.ALLOC and effect.value in op.results:
            continue  # memory that nothing before the op can name
        writes = effect.kind is not MemoryEffectKind.READ  # allocations, frees too
        described: _Effect
        if isinstance(op, TensorWindowAccess) and effect.value is op.accessed_tensor:
            described = _TensorEffect(
                writes, op.accessed_tensor, op.window_offsets, op.window_shape
            )
            key: object = op.accessed_tensor
        elif isinstance(op, AllocationBinding) and effect.value is op.bound_allocation:
            described = _SlotEffect(writes, op.bound_allocation, op.bound_slot)
            key = op.bound_allocation
        elif effect.value is None and not isinstance(effect.resource, DefaultResource):
            described = _ResourceEffect(writes, effect.resource.name())
            key = described.location
        else:
            return [_ResourceEffect(True, BARRIER)]
        if key not in merged or writes:
            merged[key] = described
    return list(merged.values())


@dataclass
class _Recorder(Interpreter.Listener):
    """Records the accesses of every op the interpreter runs."""

    raw: list[tuple[Operation, int, _Effect, Any, Window]] = field(
        default_factory=list[tuple[Operation, int, _Effect, Any, Window]]
    )
    runs: Counter[Operation] = field(default_factory=Counter[Operation])
    effects: dict[Operation, list[_Effect]] = field(
        default_factory=dict[Operation, list[_Effect]]
    )

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        if op not in self.effects:
            self.effects[op] = _op_effects(op)
        if not self.effects[op]:
            return
        run = self.runs[op]
        self.runs[op] += 1
        values = dict(zip(op.operands, args, strict=True))
        for effect in self.effects[op]:
            if isinstance(effect, _ResourceEffect):
                self.raw.append((op, run, effect, None, ()))
                continue
            if isinstance(effect, _SlotEffect):
                # The interpreter's value of an allocation is its name.
                slot = 0 if effect.slot is None else values[effect.slot].value.data
                assert 0 <= slot < MAX_SLOTS, "slot indices of generated kernels"
                location = f"allocation {values[effect.allocation]}"
                self.raw.append((op, run, effect, location, ((slot, slot + 1),)))
                continue
            starts = [values[offset].value.data for offset in effect.offsets]
            window = tuple(
                (start, start + extent)
                for start, extent in zip(starts, effect.shape, strict=True)
            )
            self.raw.append((op, run, effect, values[effect.tensor], window))


def trace_kernel(module: ModuleOp, entry: str, args: Mapping[str, KernelArg]) -> Trace:
    """Run `@entry` of `module` on `args` and record its memory accesses."""
    recorder = _Recorder()
    run = run_kernel(module, entry, args, listeners=(recorder,))
    names = {id(array): f"%{name}" for name, array in run.tensors.items()}
    shapes = {f"%{name}": array.shape for name, array in run.tensors.items()}
    accesses: list[Access] = []
    for op, count, effect, tensor, window in recorder.raw:
        if isinstance(effect, _ResourceEffect):
            location = effect.location
        elif isinstance(effect, _SlotEffect):
            location = tensor
            shapes.setdefault(location, SLOTS)
        else:
            # Kernels only see their parameters' tensors (run_kernel copies them in).
            location = names[id(tensor)]
        shapes.setdefault(location, ())
        accesses.append(Access(op, count, effect.writes, location, window))
    return Trace(run, tuple(accesses), shapes)


# --------------------------------------------------------------------------- #
# Checks
# --------------------------------------------------------------------------- #

MAX_REPORTED = 5
"""Violations reported per check, at most: the first ones are the useful ones."""


def copy_violations(before: Trace, after: Trace) -> list[str]:
    """
    For a pass that copies ops but keeps program order: the accesses, as
    (read or write, location, window), must be the same sequence. Empty if
    they are; otherwise the first difference (the later ones follow from it)
    and the counts if they differ.
    """
    problems: list[str] = []
    for position, (old, new) in enumerate(
        zip(before.accesses, after.accesses, strict=False)
    ):
        if old.what != new.what:
            problems.append(
                f"access #{position}: {old.describe()} before, {new.describe()} after"
            )
            break
    if len(before.accesses) != len(after.accesses):
        problems.append(
            f"{len(before.accesses)} accesses before, {len(after.accesses)} after"
        )
    return problems


Instance = tuple[Operation, int, str]


def _last_writers(
    trace: Trace, writer_ids: Callable[[Instance], int]
) -> Iterator[tuple[Access, np.ndarray[Any, Any], int]]:
    """
    Sweep `trace`: for each access, the ids (`writer_ids`) of the last writes
    of the elements of its window (-1: the input) and of the last barrier.
    """
    last = {
        location: np.full(shape, -1, np.int64)
        for location, shape in trace.shapes.items()
    }
    last_barrier = last.setdefault(BARRIER, np.full((), -1, np.int64))
    for access in trace.accesses:
        cells = last[access.location][access.index]
        yield access, cells.copy(), int(last_barrier)
        if access.writes:
            cells[...] = writer_ids(access.instance)


def reorder_violations(before: Trace, after: Trace) -> list[str]:
    """
    For a pass that moves ops (the k-th run of an op is the same access before
    and after): every pair of conflicting accesses must keep its order. Empty
    if it does; otherwise one line per access that sees another last writer.
    """
    instances = {access.instance: access for access in before.accesses}
    moved = {access.instance: access for access in after.accesses}
    problems = [
        f"{access.describe()}: only before the pass"
        for instance, access in instances.items()
        if instance not in moved
    ] + [
        f"{access.describe()}: only after the pass"
        for instance, access in moved.items()
        if instance not in instances
    ]
    problems += [
        f"{access.describe()} before, {other.describe()} after"
        for instance, access in instances.items()
        if (other := moved.get(instance)) is not None and access.what != other.what
    ]
    if problems:
        return problems[:MAX_REPORTED]

    ids = {instance: position for position, instance in enumerate(instances)}
    writers = list(instances.values())
    seen = {
        access.instance: (cells, barrier)
        for access, cells, barrier in _last_writers(before, ids.__getitem__)
    }

    def writer(index: int, none: str = "the input") -> str:
        return none if index < 0 else writers[index].describe()

    for access, cells, barrier in _last_writers(after, ids.__getitem__):
        expected_cells, expected_barrier = seen[access.instance]
        if barrier != expected_barrier:
            problems.append(
                f"{access.describe()}: the last op with unknown effects before it "
                f"is {writer(expected_barrier, 'none')} before the pass, "
                f"{writer(barrier, 'none')} after it"
            )
        elif not np.array_equal(cells, expected_cells):
            first = tuple(np.argwhere(cells != expected_cells)[0])
            element = [
                int(i) + start
                for i, (start, _) in zip(first, access.window, strict=True)
            ]
            where = f" element {element}" if element else ""
            problems.append(
                f"{access.describe()}:{where} last written by "
                f"{writer(int(expected_cells[first]))} before the pass, by "
                f"{writer(int(cells[first]))} after it"
            )
        if len(problems) == MAX_REPORTED:
            break
    return problems
