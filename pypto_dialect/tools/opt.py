"""
`pypto-opt`: `xdsl-opt` with compiler-style error reporting.

It takes exactly `xdsl-opt`'s flags and behaves the same, except that a
diagnostic (parse error, verifier error, pass failure) and a bad command line
are printed to stderr as `file:line:col: error: message` followed by the
offending source line, and the exit code is 1, without a Python traceback.
"""

from __future__ import annotations

import dataclasses
import sys
import warnings
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.diagnostic import Diagnostic
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.utils.lexer import Span
from xdsl.xdsl_opt_main import xDSLOptMain


class _SpanRecordingParser(Parser):
    """A parser that remembers where in the source each operation starts."""

    def __init__(
        self,
        ctx: Context,
        source: str,
        name: str,
        op_spans: dict[Operation, Span[str]],
        line_offset: int,
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
def _recording_diagnosed_ops() -> Generator[list[Operation]]:
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


def _source_excerpt(span: Span[str] | Span[bytes]) -> str:
    """The source line(s) of `span` with carets under it, without the location line."""
    return span.print_with_context().split("\n", 1)[1].rstrip("\n")


class PyPTOOptMain(xDSLOptMain):
    """`xdsl-opt` whose diagnostics are `error:` lines instead of tracebacks."""

    op_spans: dict[Operation, Span[str]]

    def __init__(
        self,
        description: str = "pypto-dialect modular optimizer driver",
        args: Sequence[str] | None = None,
    ):
        self.op_spans = {}
        super().__init__(description, args)

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        if self.args.frontend or file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        parser = _SpanRecordingParser(
            self.ctx,
            chunk.read().decode(),
            self.get_input_name(),
            self.op_spans,
            start_offset,
        )
        return parser.parse_module(not self.args.no_implicit_module)

    def run(self) -> None:
        with _recording_diagnosed_ops() as diagnosed:
            try:
                super().run()
            except ParseError as error:
                location = error.span.get_location()
                _fail(f"{location}: error: {error.msg}", _source_excerpt(error.span))
            except DiagnosticException as error:
                self._report_diagnostic(error, diagnosed)

    def _report_diagnostic(
        self, error: DiagnosticException, diagnosed: list[Operation]
    ) -> None:
        located = next((op for op in diagnosed if op in self.op_spans), None)
        if located is not None:
            span = self.op_spans[located]
            _fail(
                f"{span.get_location()}: error: '{located.name}' op {error}",
                _source_excerpt(span),
            )
        notes: list[str] = getattr(error, "__notes__", [])
        _fail(f"{self.get_input_name()}: error: {error}", *notes)


def _fail(*lines: str) -> None:
    for line in lines:
        print(line, file=sys.stderr)
    sys.exit(1)


def main(args: Sequence[str] | None = None) -> None:
    """Entry point of the `pypto-opt` console script."""
    warnings.filterwarnings("default", category=DeprecationWarning)
    try:
        driver = PyPTOOptMain(args=args)
    except (ValueError, ArgSpecParseError) as error:
        _fail(f"pypto-opt: error: {error}")
        return
    try:
        driver.run()
    except OSError as error:
        _fail(f"pypto-opt: error: {error}")


if __name__ == "__main__":
    main()
