"""
A cube kernel and its vector kernel run together, each on a core of its own
(a thread): pushes go into FIFOs of the group's depth, a push to a full FIFO
and a pop from an empty one wait for the peer. When every core still running
waits, the run is a deadlock, raised as an `InterpretationError` that names
each waiting op and its location; never a hang.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.cores import CoreGroup, core_groups
from pypto_dialect.effects import ChannelDirection
from pypto_dialect.interpreter.elements import Array
from pypto_dialect.interpreter.kernel import KernelArg, KernelRun, run_kernel
from pypto_dialect.interpreter_limits import (
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_ITERATIONS,
)
from pypto_dialect.tile import TPopOp, TPushOp

THREAD_STACK = 256 * 2**20
"""The stack of each core's thread: as deep a nest as the main thread runs."""


@dataclass(frozen=True)
class GroupRun:
    """What a run of a core group leaves behind."""

    cube: KernelRun
    vector: KernelRun
    channels: dict[ChannelDirection, tuple[Array, ...]]
    """The tiles pushed and never popped, oldest first."""


def find_group(module: ModuleOp, cube: str) -> CoreGroup:
    """The (checked) core group whose cube kernel is `@cube`."""
    for group in core_groups(module):
        if group.cube.sym_name.data == cube:
            return group
    raise InterpretationError(f"@{cube} names no vector kernel (pypto.vector_kernel)")


def run_group(
    module: ModuleOp,
    cube: str,
    cube_args: Mapping[str, KernelArg],
    vector_args: Mapping[str, KernelArg],
    *,
    max_iterations: int = DEFAULT_MAX_ITERATIONS,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
) -> GroupRun:
    """
    Run `@cube` and its vector kernel together on their arguments (as
    `run_kernel` takes them), each with the limits given. Any problem in
    either, or a deadlock, raises `InterpretationError`.
    """
    group = find_group(module, cube)
    fifos = _Fifos(group.fifo_depth)
    kernels = {"cube": group.cube, "vector": group.vector}
    arguments = {"cube": cube_args, "vector": vector_args}
    runs: dict[str, KernelRun] = {}
    errors: list[BaseException] = []

    def core(role: str) -> None:
        name = kernels[role].sym_name.data
        ends = _Ends(fifos, role, name)
        try:
            runs[role] = run_kernel(
                module,
                name,
                arguments[role],
                channel_ends=ends,
                max_iterations=max_iterations,
                max_elements=max_elements,
            )
        except BaseException as error:  # handed to the caller's thread
            errors.append(error)
            fifos.abort()
        finally:
            fifos.finish(role)

    previous = threading.stack_size(THREAD_STACK)
    try:
        threads = [threading.Thread(target=core, args=(role,)) for role in kernels]
    finally:
        threading.stack_size(previous)
    fifos.start(kernels)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if fifos.deadlock is not None:
        raise fifos.deadlock
    if errors:
        raise errors[0]
    return GroupRun(
        runs["cube"],
        runs["vector"],
        {d: tuple(q) for d, q in fifos.queues.items() if q},
    )


class _Aborted(InterpretationError):
    """Raised in a core whose peer failed: the peer's error is the run's."""


class _Fifos:
    """The two FIFOs of a group and who waits on them, under one lock."""

    def __init__(self, depth: int):
        self.depth = depth
        self.queues = {d: deque[Array]() for d in ChannelDirection}
        self.condition = threading.Condition()
        self.running: set[str] = set()
        self.waiting: dict[str, tuple[str, Operation, str, Callable[[], bool]]] = {}
        """Per waiting core: its kernel, its op, what it waits for, and whether it came."""
        self.deadlock: InterpretationError | None = None
        self.aborted = False

    def start(self, roles: Mapping[str, object]) -> None:
        self.running = set(roles)

    def finish(self, role: str) -> None:
        with self.condition:
            self.running.discard(role)
            self._check_deadlock()
            self.condition.notify_all()

    def abort(self) -> None:
        with self.condition:
            self.aborted = True
            self.condition.notify_all()

    def push(self, role: str, kernel: str, op: TPushOp, value: Array) -> None:
        queue = self.queues[op.channel.direction]
        what = f"room in the full {op.channel.direction} FIFO (depth {self.depth})"
        with self.condition:
            self._wait(role, kernel, op, lambda: len(queue) < self.depth, what)
            queue.append(value)

    def pop(self, role: str, kernel: str, op: TPopOp) -> Array:
        queue = self.queues[op.channel.direction]
        what = f"a tile in the empty {op.channel.direction} FIFO"
        with self.condition:
            self._wait(role, kernel, op, lambda: bool(queue), what)
            return queue.popleft()

    def _wait(
        self,
        role: str,
        kernel: str,
        op: Operation,
        ready: Callable[[], bool],
        what: str,
    ) -> None:
        """Wait, under the lock, until `ready()`; the caller then acts, still under it."""
        while not ready():
            if self.deadlock is not None:
                raise self.deadlock
            if self.aborted:
                raise _Aborted("the peer core failed")
            self.waiting[role] = (kernel, op, what, ready)
            self._check_deadlock()
            if self.deadlock is not None:
                raise self.deadlock
            self.condition.wait()
            self.waiting.pop(role, None)
        self.waiting.pop(role, None)
        self.condition.notify_all()

    def _check_deadlock(self) -> None:
        """
        A deadlock when every running core waits for what has not come (under
        the lock: a core woken but not yet running still counts as waiting).
        """
        if self.deadlock is not None or not self.running:
            return
        if not self.running <= self.waiting.keys():
            return
        waits = [self.waiting[role] for role in sorted(self.running)]
        if any(ready() for *_, ready in waits):
            return
        lines = [
            f"@{kernel} waits at {op.name}{_where(op)} for {what}"
            for kernel, op, what, _ in waits
        ]
        self.deadlock = InterpretationError("deadlock: " + "; ".join(lines))
        self.condition.notify_all()


@dataclass(frozen=True)
class _Ends:
    """One core's ends of its group's FIFOs (`pypto.ChannelEnds`)."""

    fifos: _Fifos
    role: str
    kernel: str

    def push(self, op: TPushOp, value: Array) -> None:
        self.fifos.push(self.role, self.kernel, op, value)

    def pop(self, op: TPopOp) -> Array:
        return self.fifos.pop(self.role, self.kernel, op)


def _where(op: Operation) -> str:
    """` (file:line:col)` of `op`, when it has a location."""
    location = op.location
    if isinstance(location, FileLineColLoc):
        return (
            f" ({location.filename.data}:{location.line.data}:{location.column.data})"
        )
    return ""
