"""
Tensor windows, with offsets as linear forms over SSA values.

An offset is folded into `sum(c_i * v_i) + c0` through `arith.constant`,
`arith.addi`, `arith.subi` and `arith.muli` by a constant; any other value is
an atom `v_i`. Index arithmetic is assumed not to overflow (offsets address
tensors of static shape). Two windows of the same tensor are provably disjoint
when, in some dimension, their offsets have the same symbolic part and their
constant intervals `[c0, c0 + extent)` do not overlap: `i*128` and
`(i+1)*128 = i*128 + 128` are 128 apart whatever `i` is.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import NamedTuple, cast

from xdsl.dialects import arith
from xdsl.ir import Operation, OpResult, SSAValue

from pypto_dialect.constants import constant_int
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.xdsl_internals import operands

Symbolic = frozenset[tuple[SSAValue, int]]
"""The symbolic part of a linear form: `(atom, coefficient)` pairs, no zero coefficient."""


@dataclass(frozen=True, slots=True)
class LinearForm:
    """`sum(c_i * v_i) + constant` over SSA values `v_i`."""

    symbolic: Symbolic = frozenset()
    constant: int = 0

    @staticmethod
    def atom(value: SSAValue) -> LinearForm:
        return LinearForm(frozenset({(value, 1)}))

    @staticmethod
    def _of_terms(terms: Mapping[SSAValue, int], constant: int) -> LinearForm:
        return LinearForm(
            frozenset((v, c) for v, c in terms.items() if c != 0), constant
        )

    def __add__(self, other: LinearForm) -> LinearForm:
        # The common offsets: a form plus a constant.
        if not other.symbolic:
            return LinearForm(self.symbolic, self.constant + other.constant)
        if not self.symbolic:
            return LinearForm(other.symbolic, self.constant + other.constant)
        terms = dict(self.symbolic)
        for value, coefficient in other.symbolic:
            terms[value] = terms.get(value, 0) + coefficient
        return LinearForm._of_terms(terms, self.constant + other.constant)

    def __mul__(self, factor: int) -> LinearForm:
        return LinearForm._of_terms(
            {v: c * factor for v, c in self.symbolic}, self.constant * factor
        )

    def __sub__(self, other: LinearForm) -> LinearForm:
        return self + other * -1

    @property
    def atoms(self) -> frozenset[SSAValue]:
        return frozenset(value for value, _ in self.symbolic)


def _multiply(lhs: LinearForm, rhs: LinearForm) -> LinearForm | None:
    """The product, when one side is a constant (the form stays linear)."""
    if not rhs.symbolic:
        return lhs * rhs.constant
    if not lhs.symbolic:
        return rhs * lhs.constant
    return None


_FOLDS: dict[
    type[Operation] | type[None],
    Callable[[LinearForm, LinearForm], LinearForm | None],
] = {
    arith.AddiOp: LinearForm.__add__,
    arith.SubiOp: LinearForm.__sub__,
    arith.MuliOp: _multiply,
}
"""How the binary ops that offsets are folded through combine their operands' forms."""


def _leaf(value: SSAValue) -> LinearForm:
    """The form of a value not folded from others: a constant, else an atom."""
    if (constant := constant_int(value)) is not None:
        return LinearForm(constant=constant)
    return LinearForm.atom(value)


class LinearForms:
    """The linear forms of SSA values, memoized (use one instance per analysis)."""

    def __init__(self) -> None:
        # By `id` (xDSL hashes values in Python), the values kept alive in `_values`.
        self._forms: dict[int, LinearForm] = {}
        self._values: list[SSAValue] = []

    def of(self, value: SSAValue) -> LinearForm:
        """
        The linear form of `value`. Iterative, one value at a time off a
        stack (long chains of `addi` are fine); each value is dispatched on
        its op once (this runs for every offset of every window).
        """
        forms, alive = self._forms, self._values
        if (known := forms.get(id(value))) is not None:
            return known
        stack = [value]
        expanding: set[int] = set()
        while stack:
            current = stack[-1]
            if id(current) in forms:  # pushed twice, or made an atom by a cycle
                stack.pop()
                continue
            owner = current.op if type(current) is OpResult else None
            fold = _FOLDS.get(type(owner))
            if fold is None:  # a constant or an atom
                forms[id(current)] = _leaf(current)
                alive.append(stack.pop())
                continue
            lhs, rhs = operands(cast(Operation, owner))
            lhs_form, rhs_form = forms.get(id(lhs)), forms.get(id(rhs))
            if lhs_form is not None and rhs_form is not None:
                expanding.discard(id(current))
                folded = fold(lhs_form, rhs_form)
                forms[id(current)] = folded if folded is not None else _leaf(current)
                alive.append(stack.pop())
            elif id(lhs) in expanding or id(rhs) in expanding:
                # A use-def cycle (only possible in graph regions): an atom.
                forms[id(current)] = LinearForm.atom(current)
                alive.append(stack.pop())
            else:
                expanding.add(id(current))
                stack.extend(
                    o for o, f in ((rhs, rhs_form), (lhs, lhs_form)) if f is None
                )
        return forms[id(value)]


class _WindowDimFields(NamedTuple):
    offset: LinearForm | None
    extent: int
    start: int
    end: int


class WindowDim(_WindowDimFields):
    """
    `[offset, offset + extent)` in one dimension; an unknown `offset` is None.
    `start` (the constant part of the offset, 0 when unknown) and `end` are
    fields, not properties: the frontier compares them per candidate. (A
    named tuple, not a frozen dataclass: one is made per offset of every
    window, and a dataclass costs a Python call per field to build and to
    hash.)
    """

    __slots__ = ()

    def __new__(cls, offset: LinearForm | None, extent: int) -> WindowDim:
        start = 0 if offset is None else offset.constant
        return tuple.__new__(cls, (offset, extent, start, start + extent))  # pyright: ignore[reportUnknownMemberType]

    def is_disjoint_from(self, other: WindowDim) -> bool:
        """Whether the two ranges provably never overlap."""
        return (
            self.offset is not None
            and other.offset is not None
            and self.offset.symbolic == other.offset.symbolic
            and (self.end <= other.start or other.end <= self.start)
        )

    def covers(self, other: WindowDim) -> bool:
        """
        Whether every range provably disjoint from `other` is provably disjoint
        from this one: this offset is unknown, or both share the symbolic part
        and this interval contains the other.
        """
        if self.offset is None:
            return True
        return (
            other.offset is not None
            and self.offset.symbolic == other.offset.symbolic
            and self.start <= other.start
            and other.end <= self.end
        )


class _WindowFields(NamedTuple):
    dims: tuple[WindowDim, ...]
    is_anywhere: bool


class Window(_WindowFields):
    """
    The part of a memory object an access touches, one `WindowDim` per
    dimension. A window without dimensions (`ANYWHERE`) may touch
    anything, as may two windows of different ranks. `is_anywhere` (no
    dimension has a known offset) is a field: the frontier asks it per
    query. (A named tuple, as `WindowDim` is.)
    """

    __slots__ = ()

    def __new__(cls, dims: tuple[WindowDim, ...] = ()) -> Window:
        anywhere = all(dim.offset is None for dim in dims)
        return tuple.__new__(cls, (dims, anywhere))  # pyright: ignore[reportUnknownMemberType]

    @property
    def rank(self) -> int:
        return len(self.dims)

    def is_disjoint_from(self, other: Window) -> bool:
        """Whether the two windows provably never overlap."""
        # `len`, not `rank`: the frontier asks per candidate.
        return len(self.dims) == len(other.dims) and any(
            a.is_disjoint_from(b) for a, b in zip(self.dims, other.dims, strict=True)
        )

    def covers(self, other: Window) -> bool:
        """
        Whether every window provably disjoint from this one is provably
        disjoint from `other` (containment, as far as it can be proven).
        """
        if not self.dims:
            return True
        return len(self.dims) == len(other.dims) and all(
            a.covers(b) for a, b in zip(self.dims, other.dims, strict=True)
        )

    def hiding(self, is_hidden: Callable[[SSAValue], bool]) -> Window:
        """This window with unknown offsets where they depend on a hidden value."""
        if self.is_anywhere:  # nothing to hide: common in nests, once hidden inside
            return self
        dims: list[WindowDim] | None = None  # copied at the first hidden offset
        for d, dim in enumerate(self.dims):
            offset = dim.offset
            if offset is not None and any(is_hidden(v) for v, _ in offset.symbolic):
                dims = list(self.dims) if dims is None else dims
                dims[d] = WindowDim(None, dim.extent)
        return self if dims is None else Window(tuple(dims))


ANYWHERE = Window()
"""The window of an access whose extent is unknown."""


def access_window(
    op: TensorWindowAccess,
    forms: LinearForms,
    is_hidden: Callable[[SSAValue], bool] | None = None,
) -> Window:
    """
    The window `op` accesses. A dimension whose offset depends on a hidden
    value (e.g. defined inside the regions of the op the analysis looks at
    from outside) has an unknown offset.
    """
    offsets = zip(op.window_offsets, op.window_shape, strict=True)
    window = Window(tuple(WindowDim(forms.of(o), extent) for o, extent in offsets))
    return window if is_hidden is None else window.hiding(is_hidden)
