"""Compile-time values of SSA values."""

from __future__ import annotations

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import OpResult, SSAValue
from xdsl.traits import ConstantLike


def constant_int(value: SSAValue) -> int | None:
    """The integer `value` holds when a constant-like op defines it, else None."""
    if type(value) is not OpResult:
        return None
    owner = value.op
    # `arith.constant` directly; any other constant-like op through its folder.
    attr = (
        owner.value
        if type(owner) is ConstantOp
        else ConstantLike.get_constant_value(value)
    )
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None
