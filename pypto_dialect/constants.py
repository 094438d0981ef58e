"""Compile-time values of SSA values."""

from __future__ import annotations

from functools import cache

from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import ConstantLike


@cache
def _is_constant_like(op_type: type[Operation]) -> bool:
    """Whether ops of `op_type` are constant-like (traits are per class: cached)."""
    return op_type.has_trait(ConstantLike)


def constant_int(value: SSAValue) -> int | None:
    """The integer `value` holds when a constant-like op defines it, else None."""
    if type(value) is not OpResult:
        return None
    owner = value.op
    # `arith.constant` directly; any other constant-like op through its folder.
    if type(owner) is ConstantOp:
        # `owner.value`, without IRDL's descriptor; missing in an op not yet
        # verified (a verifier of an op above it may ask).
        attr = owner.properties.get("value")
    elif _is_constant_like(type(owner)):
        attr = ConstantLike.get_constant_value(value)
    else:
        return None
    if isinstance(attr, IntegerAttr):
        return attr.value.data
    return None
