"""
Source text for the frontends and the tools: bytes decoded as UTF-8
(`decode_source`, `UnreadableInput` for what is not text) and errors worded
at a span of it (`located_error`). Below both the frontend plugin and the
console tools, which word their errors alike. `read_input` is how the three
tools (and `costs=`) read a file: `-` for standard input, a size limit, one
message for what cannot be read; `input_format` is their one rule for file
extensions.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

from xdsl.utils.lexer import Span

MAX_INPUT_BYTES = 2**26
"""The largest file (64 MiB) a tool reads, so that `/dev/zero` is refused, not read."""


class UnreadableInput(Exception):
    """Input that is not a program's text; the message says why (`cannot read FILE: ...`)."""


def read_input(path: str, limit: int = MAX_INPUT_BYTES) -> bytes:
    """
    The bytes of the file `path` (`-`: standard input), or `UnreadableInput`
    saying why (the system's reason, or a size past `limit` bytes).
    """
    try:
        if path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with open(path, "rb") as file:
                data = file.read(limit + 1)
    except OSError as error:
        raise UnreadableInput(error.strerror or type(error).__name__) from None
    if len(data) > limit:
        raise UnreadableInput(f"larger than {limit:,} bytes")
    return data


def input_format(path: str, known: Iterable[str]) -> str:
    """
    The format of the input `path` by its extension, one of `known` (`-`,
    standard input, is `mlir`); `UnreadableInput` for any other.
    """
    if path == "-":
        return "mlir"
    known = tuple(known)
    extension = os.path.splitext(path)[1].removeprefix(".")
    if extension in known:
        return extension
    problem = (
        f"unknown file extension '.{extension}'" if extension else "no file extension"
    )
    listed = ", ".join(f".{name}" for name in sorted(known))
    raise UnreadableInput(f"{problem} (known: {listed})")


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
