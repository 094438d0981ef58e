"""
Integers from the input: the range of `index` in this project's tools, and
how messages word an integer of any size (Python prints no integer of more
than 4,300 digits, and a hex literal can hold a larger one).
"""

from __future__ import annotations

import math

INDEX_BITS = 64
"""The width of `index` in this project's tools: signed 64-bit, as in the
interpreter, the lowering's arithmetic, the PyPTO frontend and target
(xDSL's `IntegerAttr` takes any `index` value)."""
INDEX_MIN = -(2 ** (INDEX_BITS - 1))
"""The smallest `index` value."""
INDEX_MAX = 2 ** (INDEX_BITS - 1) - 1
"""The largest `index` value."""

SHOWN_DIGITS = 24
"""The most digits `integer_text` shows in full."""


def integer_text(value: int) -> str:
    """
    `value` for a message: in full up to `SHOWN_DIGITS` digits, else its
    first digits and its length, `-123456...(4,816 digits)`.
    """
    magnitude = abs(value)
    if magnitude < 10**SHOWN_DIGITS:
        return str(value)
    # A lower bound of the digit count (2^(bits-1) <= magnitude), then exact.
    digits = int((magnitude.bit_length() - 1) * math.log10(2)) + 1
    while magnitude >= 10**digits:
        digits += 1
    leading = magnitude // 10 ** (digits - 6)
    return f"{'-' if value < 0 else ''}{leading}...({digits:,} digits)"


def index_misfit(value: int) -> str | None:
    """Why `value` is not an `index` value (the range), or None if it is one."""
    if INDEX_MIN <= value <= INDEX_MAX:
        return None
    return f"does not fit in a {INDEX_BITS}-bit index ({INDEX_MIN} to {INDEX_MAX})"
