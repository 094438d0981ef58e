"""
Source locations for the diagnostics of `pypto-opt` and `pypto-run`.

xDSL ops do not keep where they were parsed from: `SpanRecordingParser`
remembers it, and `recording_diagnosed_ops` tells which ops a diagnostic is
about (the op a verifier or pass reported; for an interpretation error, the
op that failed, then the ops around it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterable
from contextlib import contextmanager

from xdsl.context import Context
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.lexer import Span

OpSpans = dict[Operation, Span[str]]


class SpanRecordingParser(Parser):
    """A parser that remembers where in the source each operation starts."""

    def __init__(
        self,
        ctx: Context,
        source: str,
        name: str,
        op_spans: OpSpans,
        line_offset: int = 0,
    ):
        super().__init__(ctx, source, name)
        self._op_spans = op_spans
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        op = super().parse_operation()
        self._op_spans[op] = dataclasses.replace(span, line_offset=self._line_offset)
        return op


@contextmanager
def recording_diagnosed_ops() -> Generator[list[Operation]]:
    """Collect the ops that xDSL attaches diagnostics to while the block runs."""
    diagnosed: list[Operation] = []
    add_message = Diagnostic.add_message

    def recording_add_message(self: Diagnostic, op: Operation, message: str) -> None:
        diagnosed.append(op)
        add_message(self, op, message)

    setattr(Diagnostic, "add_message", recording_add_message)  # noqa: B010
    try:
        yield diagnosed
    finally:
        setattr(Diagnostic, "add_message", add_message)  # noqa: B010


def source_excerpt(span: Span[str] | Span[bytes]) -> str:
    """The source line(s) of `span` with carets under it, without the location line."""
    return span.print_with_context().split("\n", 1)[1].rstrip("\n")


def located_error(span: Span[str] | Span[bytes], message: str) -> str:
    """`file:line:col: error: message` and the source line with carets."""
    return f"{span.get_location()}: error: {message}\n{source_excerpt(span)}"


def first_located(ops: Iterable[Operation], op_spans: OpSpans) -> Operation | None:
    """The first of `ops` whose source location is known."""
    return next((op for op in ops if op in op_spans), None)
