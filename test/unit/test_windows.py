"""Linear forms of offsets and window disjointness (`passes/analysis/windows.py`)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32
from xdsl.ir import Block, Operation, SSAValue

from passes.analysis.windows import (
    ANYWHERE,
    LinearForm,
    LinearForms,
    Window,
    WindowDim,
    access_window,
)
from pypto_dialect.tile import LoadOp
from pypto_dialect.types import MemorySpace, TensorType, TileType

INDEX = IndexType()


def _atoms(count: int) -> tuple[SSAValue, ...]:
    return Block(arg_types=[INDEX] * count).args


def _const(value: int) -> SSAValue:
    return arith.ConstantOp(IntegerAttr(value, INDEX)).result


def _result(op: Operation) -> SSAValue:
    return op.results[0]


def test_constants_and_atoms():
    forms = LinearForms()
    (i,) = _atoms(1)
    assert forms.of(_const(7)) == LinearForm(constant=7)
    assert forms.of(i) == LinearForm.atom(i)


def test_folds_add_sub_and_multiply_by_constant():
    forms = LinearForms()
    i, j = _atoms(2)
    c1, c128 = _const(1), _const(128)
    # (i + 1) * 128 - j == 128*i - j + 128
    next_i = _result(arith.AddiOp(i, c1))
    offset = _result(arith.MuliOp(next_i, c128))
    value = _result(arith.SubiOp(offset, j))
    assert forms.of(value) == LinearForm(frozenset({(i, 128), (j, -1)}), 128)
    # The constant may be on either side of the multiplication.
    assert forms.of(_result(arith.MuliOp(c128, i))) == LinearForm(frozenset({(i, 128)}))


def test_cancelled_terms_disappear():
    forms = LinearForms()
    (i,) = _atoms(1)
    plus_two = _result(arith.AddiOp(i, _const(2)))
    assert forms.of(_result(arith.SubiOp(plus_two, i))) == LinearForm(constant=2)


def test_anything_else_is_an_atom():
    forms = LinearForms()
    i, j = _atoms(2)
    product = _result(arith.MuliOp(i, j))
    quotient = _result(arith.FloorDivSIOp(i, _const(2)))
    assert forms.of(product) == LinearForm.atom(product)
    assert forms.of(quotient) == LinearForm.atom(quotient)
    # ... and folds on as an atom.
    shifted = _result(arith.AddiOp(product, _const(4)))
    assert forms.of(shifted) == LinearForm(frozenset({(product, 1)}), 4)


def test_long_chains_do_not_recurse():
    forms = LinearForms()
    (value,) = _atoms(1)
    root = value
    one = _const(1)
    for _ in range(5000):
        value = _result(arith.AddiOp(value, one))
    assert forms.of(value) == LinearForm(frozenset({(root, 1)}), 5000)


def test_shared_subexpressions():
    forms = LinearForms()
    (i,) = _atoms(1)
    a = _result(arith.AddiOp(i, _const(1)))
    b = _result(arith.AddiOp(a, a))  # 2i + 2
    c = _result(arith.AddiOp(b, a))  # 3i + 3
    assert forms.of(c) == LinearForm(frozenset({(i, 3)}), 3)


def _dim(form: LinearForm | None, extent: int) -> WindowDim:
    return WindowDim(form, extent)


def test_disjoint_when_same_symbols_and_separate_intervals():
    (i,) = _atoms(1)
    base = LinearForm.atom(i) * 128
    first = Window((_dim(base, 128),))
    second = Window((_dim(base + LinearForm(constant=128), 128),))
    overlapping = Window((_dim(base + LinearForm(constant=64), 128),))
    assert first.is_disjoint_from(second)
    assert second.is_disjoint_from(first)
    assert not first.is_disjoint_from(overlapping)


def test_not_disjoint_with_different_or_unknown_symbols():
    i, j = _atoms(2)
    at_i = Window((_dim(LinearForm.atom(i), 16),))
    at_j = Window((_dim(LinearForm.atom(j) + LinearForm(constant=512), 16),))
    unknown = Window((_dim(None, 16),))
    assert not at_i.is_disjoint_from(at_j)
    assert not at_i.is_disjoint_from(unknown)
    assert not at_i.is_disjoint_from(ANYWHERE)


def test_one_disjoint_dimension_is_enough():
    i, j = _atoms(2)
    rows = LinearForm.atom(i)
    row_block = Window((_dim(rows, 16), _dim(LinearForm.atom(j), 64)))
    next_rows = Window((_dim(rows + LinearForm(constant=16), 16), _dim(None, 64)))
    assert row_block.is_disjoint_from(next_rows)


def test_different_ranks_are_never_disjoint():
    one_d = Window((_dim(LinearForm(constant=0), 4),))
    two_d = Window((_dim(LinearForm(constant=8), 4), _dim(LinearForm(), 4)))
    assert not one_d.is_disjoint_from(two_d)
    assert not one_d.covers(two_d)


def test_covers():
    (i,) = _atoms(1)
    base = LinearForm.atom(i)
    whole = Window((_dim(base, 128),))
    inner = Window((_dim(base + LinearForm(constant=32), 64),))
    sticking_out = Window((_dim(base + LinearForm(constant=96), 64),))
    assert whole.covers(inner)
    assert not inner.covers(whole)
    assert not whole.covers(sticking_out)
    assert not whole.covers(Window((_dim(None, 8),)))
    assert Window((_dim(None, 8),)).covers(whole)
    assert ANYWHERE.covers(whole)
    assert not whole.covers(ANYWHERE)


def test_access_window_hides_values():
    x, i, j = Block(arg_types=[TensorType([1024], f32), INDEX, INDEX]).args
    load = LoadOp(x, [i], TileType([128], f32, MemorySpace.VEC))
    forms = LinearForms()
    assert access_window(load, forms) == Window((_dim(LinearForm.atom(i), 128),))
    assert access_window(load, forms, lambda v: v is i) == Window((_dim(None, 128),))
    assert access_window(load, forms, lambda v: v is j) == Window(
        (_dim(LinearForm.atom(i), 128),)
    )


# --------------------------------------------------------------------------- #
# Soundness against concrete values
# --------------------------------------------------------------------------- #

_ATOMS = _atoms(2)


def _form(coefficients: list[int], constant: int) -> LinearForm:
    terms = zip(_ATOMS, coefficients, strict=True)
    return LinearForm(frozenset((a, c) for a, c in terms if c), constant)


_forms = st.builds(
    _form,
    st.lists(st.integers(-2, 2), min_size=2, max_size=2),
    st.integers(-40, 40),
)
_dims = st.tuples(st.none() | _forms, st.integers(1, 24)).map(
    lambda dim: WindowDim(*dim)
)
_windows = st.integers(1, 2).flatmap(
    lambda rank: st.lists(_dims, min_size=rank, max_size=rank).map(
        lambda dims: Window(tuple(dims))
    )
)
_values = st.lists(st.integers(-30, 30), min_size=2, max_size=2)
_unknown_offsets = st.lists(st.integers(-100, 100), min_size=2, max_size=2)


def _concrete(
    window: Window, values: list[int], unknown: list[int]
) -> list[tuple[int, int]]:
    """`[start, end)` per dimension, with `unknown` standing for unknown offsets."""
    env = dict(zip(_ATOMS, values, strict=True))
    ranges: list[tuple[int, int]] = []
    for dim, fallback in zip(window.dims, unknown, strict=False):
        if dim.offset is None:
            start = fallback
        else:
            start = dim.offset.constant + sum(
                c * env[a] for a, c in dim.offset.symbolic
            )
        ranges.append((start, start + dim.extent))
    return ranges


def _overlap(a: list[tuple[int, int]], b: list[tuple[int, int]]) -> bool:
    return all(s1 < e2 and s2 < e1 for (s1, e1), (s2, e2) in zip(a, b, strict=True))


@given(_windows, _windows, _values, _unknown_offsets, _unknown_offsets)
def test_provably_disjoint_windows_never_overlap(
    a: Window,
    b: Window,
    values: list[int],
    unknown_a: list[int],
    unknown_b: list[int],
):
    if a.is_disjoint_from(b):
        assert not _overlap(
            _concrete(a, values, unknown_a), _concrete(b, values, unknown_b)
        )


@given(_windows, _windows, _windows)
def test_covering_window_conflicts_with_whatever_the_covered_one_does(
    outer: Window, inner: Window, other: Window
):
    if outer.covers(inner) and not other.is_disjoint_from(inner):
        assert not other.is_disjoint_from(outer)


@given(_windows, _windows, _values)
def test_covered_windows_are_contained(outer: Window, inner: Window, values: list[int]):
    if outer.covers(inner) and all(d.offset is not None for d in outer.dims):
        for (s1, e1), (s2, e2) in zip(
            _concrete(outer, values, [0, 0]),
            _concrete(inner, values, [0, 0]),
            strict=True,
        ):
            assert s1 <= s2 and e2 <= e1


def test_use_def_cycles_end_in_atoms():
    # Only graph regions allow them; the analysis must still terminate.
    (i,) = _atoms(1)
    one = _const(1)
    twice = arith.AddiOp(i, i)
    twice.operands[0] = twice.operands[1] = twice.result  # %t = %t + %t
    assert LinearForms().of(twice.result) == LinearForm.atom(twice.result)
    x, y = arith.AddiOp(i, one), arith.AddiOp(i, one)
    x.operands[0], y.operands[0] = y.result, x.result  # %x = %y + 1, %y = %x + 1
    assert LinearForms().of(x.result) == LinearForm(frozenset({(y.result, 1)}), 1)
