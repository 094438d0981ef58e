"""Inputs that are not program text, and how both tools must describe them."""

UNREADABLE = [
    (
        b"func.func @f() {\n  \xff\n}\n",
        "not UTF-8 text (byte 0xff at line 2, column 3)",
    ),
    (b"\x7fELF\x02\x01\x01\x00", "binary data (NUL byte at line 1, column 8)"),
]
"""(bytes, the reason `cannot read FILE: ...` gives)."""
