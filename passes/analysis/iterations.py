"""
The dependences of two consecutive iterations of a loop body, found on the
body's own ops (no copy of them).

Within an iteration they are the edges of the body's dependence graph. Into
the next iteration: SSA edges from the ops whose results the body yields to
the ops that use the matching iter_args, and memory conflicts of the next
iteration's accesses, which the frontier (`frontier.py`) visits after the
first iteration's. The next iteration's access of an op is its access with
the induction variable one step further: in every offset `c * iv` becomes
`c * (iv + step)` (a slot's rotation, `slots.py`, taken modulo again).
That holds while an access depends on no other value the next iteration
renames (an iter_arg, a value defined in the body); for a body with such an
access, `iterations` gives None and the caller analyses copies of the body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from xdsl.dialects import scf
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.frontier import MemoryFrontier
from passes.analysis.graph import visited_accesses
from passes.analysis.slots import rotation_modulus
from passes.analysis.summaries import MemoryAccess, OpSummaries
from passes.analysis.windows import LinearForm, LinearForms, Window, WindowDim
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.xdsl_internals import operands

Loop = scf.ForOp | PipelineOp


class Iterations:
    """
    The dependences among the ops of a block, and of a loop body into its
    next iteration: nodes `0 .. n-1` are the ops, `n .. 2n-1` the same ops
    in the next iteration (no edge goes between two of those).
    """

    def __init__(self, ops: Sequence[Operation], yielded: Mapping[SSAValue, SSAValue]):
        self.ops = tuple(ops)
        self.predecessors: list[dict[int, list[Dependence]]] = [
            {} for _ in range(2 * len(ops))
        ]
        """Per node, its sources and the reasons (in the order found)."""
        self._yielded = yielded

    def add_edge(self, source: int, target: int, reason: Dependence) -> None:
        reasons = self.predecessors[target].setdefault(source, [])
        if reason not in reasons:
            reasons.append(reason)

    def previous_value(self, value: SSAValue | None) -> SSAValue | None:
        """
        The value of an iteration that `value`, as the next iteration uses
        it, is: the yielded value of an iter_arg, else None (a value of the
        next iteration or of outside, never one the first iteration defines).
        """
        return None if value is None else self._yielded.get(value)


def iterations(
    ops: Sequence[Operation], loop: Loop | None, summaries: OpSummaries
) -> Iterations | None:
    """
    The dependences of `ops` (the body of `loop` without its terminator, or
    ops of a block run once, `loop` None); None when an access of the next
    iteration is not the shifted access of this one.
    """
    if not ops:
        return Iterations(ops, {})
    block = ops[0].parent if loop is None else loop.body.block
    assert block is not None
    visited = visited_accesses(block, ops, summaries)
    yielded: dict[SSAValue, SSAValue] = {}
    shifted: list[Sequence[MemoryAccess] | None] = []
    if loop is not None:
        shift = _Shift(loop, summaries.forms)
        for accesses in visited:
            if accesses is None:  # unknown effects, in every iteration
                shifted.append(None)
            elif (moved := shift.accesses(accesses)) is None:
                return None
            else:
                shifted.append(moved)
        terminator = block.last_op
        if terminator is not None and terminator.has_trait(IsTerminator):
            yielded = dict(zip(block.args[1:], terminator.operands, strict=False))
    found = Iterations(ops, yielded)
    frontier = MemoryFrontier(found.add_edge)
    index_of = {id(op): index for index, op in enumerate(ops)}.get
    for index, op in enumerate(ops):
        # As `DependenceGraph.build`: xDSL's tuple of a region-free op's operands.
        for value in summaries.uses(op) if op.regions else operands(op):
            if type(value) is OpResult:
                source = index_of(id(value.op))
                if source is not None and source < index:
                    found.add_edge(source, index, Dependence(DependenceKind.SSA, value))
        if visited[index] != ():
            frontier.visit(index, visited[index])
    later = len(ops)
    for index, op in enumerate(ops):
        for value in summaries.uses(op) if op.regions else operands(op):
            earlier = yielded.get(value)
            if (
                type(earlier) is OpResult
                and (source := index_of(id(earlier.op))) is not None
            ):
                reason = Dependence(DependenceKind.SSA, earlier)
                found.add_edge(source, later + index, reason)
        if shifted and shifted[index] != ():
            frontier.visit(later + index, shifted[index])
    return found


class _Shift:
    """The accesses of a loop body's next iteration: the induction variable one step further."""

    def __init__(self, loop: Loop, forms: LinearForms):
        self.loop = loop
        self.induction_var = loop.body.block.args[0]
        self.step = forms.of(loop.step)
        self._renamed: dict[int, bool] = {}
        """By the `id` of a value (kept alive in `_values`): `_is_renamed`."""
        self._values: list[SSAValue] = []

    def accesses(
        self, accesses: Sequence[MemoryAccess]
    ) -> Sequence[MemoryAccess] | None:
        """The accesses one step further, None if one depends on a renamed value."""
        moved: list[MemoryAccess] = []
        for access in accesses:
            if access.value is not None and self._is_renamed(access.value):
                return None
            window = self.window(access.window)
            if window is None:
                return None
            moved.append(
                access if window is access.window else access._replace(window=window)
            )
        return moved

    def window(self, window: Window) -> Window | None:
        """The window one step further, None if it depends on a renamed value."""
        if window.is_anywhere:
            return window
        dims: list[WindowDim] = []
        for dim in window.dims:
            offset = None if dim.offset is None else self.form(dim.offset)
            if dim.offset is not None and offset is None:
                return None
            dims.append(dim if offset is dim.offset else WindowDim(offset, dim.extent))
        return Window(tuple(dims))

    def form(self, form: LinearForm) -> LinearForm | None:
        """The form one step further, None if it depends on a renamed value."""
        coefficient = 0
        for atom, factor in form.symbolic:
            if atom is self.induction_var:
                coefficient = factor
            elif self._is_renamed(atom):
                return None
        if not coefficient:
            return form
        moved = form + self.step * coefficient
        modulus = rotation_modulus(form)
        if modulus is None:
            return moved
        return LinearForm(moved.symbolic, moved.constant % modulus)

    def _is_renamed(self, value: SSAValue) -> bool:
        """Whether the next iteration has its own `value`: defined in the loop's body."""
        renamed = self._renamed.get(id(value))
        if renamed is None:
            owner = value.op if type(value) is OpResult else None
            if type(value) is BlockArgument:
                owner = value.block.parent_op()
            renamed = owner is not None and self.loop.is_ancestor(owner)
            self._renamed[id(value)] = renamed
            self._values.append(value)
        return renamed
