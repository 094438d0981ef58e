"""
The slots of declared allocations, as the dependence analysis sees them.

A binding (`pypto.bind %v to %a[%k]`) writes slot `%k` of `%a`; every use of
the bound tile reads it, and the op that computes `%v`, when the binding is
its one use (in its block), writes the slot too: that is where PyPTO's
annotation puts the tile. So a tile bound to a slot is never computed before
the last use of the tile held there before (a write after read).

A slot is a one-element window of its allocation, which the frontier
compares as it compares tensor windows. Its offset is the linear form of the
index; a remainder by a constant, `arith.remsi(x, m)` (the rotation
`i % F`), is `x`'s symbolic part marked with `(allocation, m)` plus its
constant modulo `m`: two such slots of one allocation with the same marked
part differ when their constants do, since `remsi(x, m)` is congruent to
`x` modulo `m` (so `i % 2` and `(i + 1) % 2`, consecutive iterations, never
meet). The marker is an atom no index form has (an allocation is not an
index), so a marked form is never equal to a plain one.

For the schedule model: how many iterations apart a binding takes the same
slot again (`slot_period`), and the bytes an allocation pins
(`declared_bytes`).
"""

from __future__ import annotations

import math

from xdsl.dialects import arith
from xdsl.ir import OpResult, SSAValue

from passes.analysis.footprint import padded_bytes
from passes.analysis.windows import LinearForm, LinearForms, Window, WindowDim
from pypto_dialect.allocation import AllocOp, BindOp, filled_binding
from pypto_dialect.constants import constant_int
from pypto_dialect.types import AllocType, TileType

__all__ = [
    "binding_of",
    "declared_bytes",
    "filled_binding",
    "rotation_modulus",
    "slot_period",
    "slot_window",
]


def binding_of(value: SSAValue) -> BindOp | None:
    """The binding whose result `value` is: a bound tile, else None."""
    if type(value) is OpResult and type(value.op) is BindOp:
        return value.op
    return None


def slot_window(binding: BindOp, forms: LinearForms) -> Window:
    """The one-element window of the slot `binding` takes (slot 0 without an index)."""
    index = binding.slot
    offset = LinearForm() if index is None else _slot_form(index, binding, forms)
    return Window((WindowDim(offset, 1),))


def _slot_form(index: SSAValue, binding: BindOp, forms: LinearForms) -> LinearForm:
    owner = index.owner
    if type(owner) is not arith.RemSIOp:
        return forms.of(index)
    modulus = constant_int(owner.rhs)
    if modulus is None or modulus <= 0:
        return forms.of(index)
    dividend = forms.of(owner.lhs)
    if not dividend.symbolic:  # a constant: its remainder, rounded toward zero
        quotient = abs(dividend.constant) // modulus
        remainder = abs(dividend.constant) - quotient * modulus
        return LinearForm(constant=remainder if dividend.constant >= 0 else -remainder)
    marker = (binding.allocation, modulus)
    return LinearForm(dividend.symbolic | {marker}, dividend.constant % modulus)


def rotation_modulus(form: LinearForm) -> int | None:
    """The modulus of a slot's form marked as a rotation (`_slot_form`), None if unmarked."""
    return next(
        (
            modulus
            for atom, modulus in form.symbolic
            if isinstance(atom.type, AllocType)
        ),
        None,
    )


def slot_period(binding: BindOp, induction_var: SSAValue, step: SSAValue) -> int:
    """
    Every how many iterations of the loop over `induction_var` (by `step`)
    `binding` takes the same slot again: F for the rotation `i % F` (step 1),
    1 for a constant slot or one the loop does not advance by a known amount.
    """
    index = binding.slot
    owner = None if index is None else index.owner
    if type(owner) is not arith.RemSIOp:
        return 1
    modulus, stride = constant_int(owner.rhs), constant_int(step)
    if modulus is None or modulus <= 1 or stride is None:
        return 1
    dividend = LinearForms().of(owner.lhs)
    coefficients = dict(dividend.symbolic)
    if set(coefficients) != {induction_var}:
        return 1  # a slot that other values advance: taken again at any time
    shift = coefficients[induction_var] * stride % modulus
    return modulus // math.gcd(shift, modulus) if shift else 1


def declared_bytes(declaration: AllocOp) -> int:
    """The bytes an allocation pins: its slots, each the size of its largest tile."""
    largest = max(
        (padded_bytes(_tile(binding)) for binding in declaration.bindings()), default=0
    )
    return declaration.num_slots * largest


def _tile(binding: BindOp) -> TileType:
    tile = binding.result.type
    assert isinstance(tile, TileType)
    return tile
