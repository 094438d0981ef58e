"""
Number literals in both directions: whether an integer fits its type
(`literal_misfit`, with the width of `index`) and how a float prints so that
it reads back as the same float (`float_literal_text`, `nan_has_payload`).
"""

from __future__ import annotations

import math
import struct
from typing import Any, cast

from xdsl.dialects.builtin import IndexType, IntegerType
from xdsl.ir import Attribute

from pypto_dialect.dsl.annotations import annotation_text
from pypto_dialect.numbers import index_misfit


def literal_misfit(typ: Attribute, value: int) -> str | None:
    """
    Why `value` cannot be an integer constant of `typ`, if not: an `index`
    is signed 64-bit (`index_misfit`), an `iN` takes what xDSL's `IntegerAttr`
    accepts (signless: the signed and the unsigned ranges).
    """
    if isinstance(typ, IndexType):
        return index_misfit(value)
    integer_type = cast(IntegerType[Any, Any], typ)
    low, high = integer_type.value_range()
    if low <= value < high:
        return None
    width = integer_type.width.data
    where = annotation_text(typ)
    return f"does not fit in {where} ({width} bits: {low} to {high - 1})"


_QUIET_NAN = 0x7FF8000000000000
"""The bits of `float("nan")`, the quiet NaN without payload (each float
type's own widens to it); `-float("nan")` has the sign bit too."""
_SIGN = 1 << 63


def nan_has_payload(value: float) -> bool:
    """
    Whether `value` is a NaN with a payload, which no PyPTO literal writes
    (only `float("nan")` and `-float("nan")`: the quiet NaN of either sign).
    """
    if not math.isnan(value):
        return False
    bits: int = struct.unpack("<Q", struct.pack("<d", value))[0]
    return bits & ~_SIGN != _QUIET_NAN


def float_literal_text(value: float) -> str:
    """
    A float as a literal that reads back as the same float (a NaN keeps its
    sign; `nan_has_payload` tells the NaNs it cannot write).
    """
    if math.isnan(value):
        return '-float("nan")' if math.copysign(1.0, value) < 0 else 'float("nan")'
    if math.isinf(value):
        return 'float("inf")' if value > 0 else 'float("-inf")'
    return repr(value)
