"""
Number literals in both directions: whether an integer fits its type
(`literal_misfit`, with the width of `index`) and how a float prints so that
it reads back as the same float (`float_literal_text`).
"""

from __future__ import annotations

import math
from typing import Any, cast

from xdsl.dialects.builtin import IndexType, IntegerType, Signedness
from xdsl.ir import Attribute

from pypto_dialect.dsl.annotations import annotation_text

INDEX_BITS = 64
"""The width of `index`: signed 64-bit, as the interpreter and the lowering's
overflow check take it (xDSL's `IntegerAttr` would accept any `index` value)."""


def literal_misfit(typ: Attribute, value: int) -> str | None:
    """Why `value` cannot be an integer constant of `typ` (its width and range), if not."""
    low, high = _integer_range(typ)
    if low <= value < high:
        return None
    if isinstance(typ, IndexType):
        return f"does not fit in a {INDEX_BITS}-bit index ({low} to {high - 1})"
    width = cast(IntegerType[Any, Any], typ).width.data
    where = annotation_text(typ)
    return f"does not fit in {where} ({width} bits: {low} to {high - 1})"


def _integer_range(typ: Attribute) -> tuple[int, int]:
    """
    `(min, max + 1)` of the literals of an integer type: what xDSL's
    `IntegerAttr` accepts for an `iN` (signless: the signed and the unsigned
    ranges), the signed 64-bit range for `index`.
    """
    if isinstance(typ, IntegerType):
        return cast(IntegerType[Any, Any], typ).value_range()
    return IntegerType(INDEX_BITS, Signedness.SIGNED).value_range()


def float_literal_text(value: float) -> str:
    """A float as a literal that reads back as the same float."""
    if math.isnan(value):
        return 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)
