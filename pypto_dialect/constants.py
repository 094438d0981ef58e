"""Compile-time values of SSA values."""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import SSAValue
from xdsl.traits import ConstantLike


def constant_int(value: SSAValue) -> int | None:
    """The integer `value` holds when a constant-like op defines it, else None."""
    attr = ConstantLike.get_constant_value(value)
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None
