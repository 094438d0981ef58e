"""
Source text for the frontends and the tools: bytes decoded as UTF-8
(`decode_source`, `UnreadableInput` for what is not text) and errors worded
at a span of it (`located_error`). Below both the frontend plugin and the
console tools, which word their errors alike.
"""

from __future__ import annotations

from xdsl.utils.lexer import Span


class UnreadableInput(Exception):
    """Input that is not a program's text; the message says why (`cannot read FILE: ...`)."""


def source_excerpt(span: Span[str] | Span[bytes]) -> str:
    """The source line(s) of `span` with carets under it, without the location line."""
    return span.print_with_context().split("\n", 1)[1].rstrip("\n")


def located_error(span: Span[str] | Span[bytes], message: str) -> str:
    """`file:line:col: error: message` and the source line with carets."""
    return f"{span.get_location()}: error: {message}\n{source_excerpt(span)}"


def decode_source(data: bytes, line_offset: int = 0) -> str:
    """
    `data` as UTF-8 text, or `UnreadableInput` locating the first NUL byte or
    invalid byte (`line_offset` lines precede `data` in the file). A byte
    order mark that starts the file is skipped, as Python skips it.
    """
    nul = data.find(b"\0")
    if nul >= 0:
        raise UnreadableInput(
            f"binary data (NUL byte at {_where(data, nul, line_offset)})"
        )
    try:
        return data.decode("utf-8-sig" if line_offset == 0 else "utf-8")
    except UnicodeDecodeError as error:
        byte = data[error.start]
        where = _where(data, error.start, line_offset)
        raise UnreadableInput(f"not UTF-8 text (byte {byte:#04x} at {where})") from None


def _where(data: bytes, offset: int, line_offset: int) -> str:
    line = line_offset + data.count(b"\n", 0, offset) + 1
    column = offset - data.rfind(b"\n", 0, offset)
    return f"line {line}, column {column}"
