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
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import OpResult, SSAValue

from passes.analysis.windows import LinearForm, LinearForms, Window, WindowDim
from pypto_dialect.allocation import BindOp, filled_binding
from pypto_dialect.constants import constant_int

__all__ = ["binding_of", "filled_binding", "slot_window"]


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
