"""
`pypto-opt`: `xdsl-opt` with compiler-style error reporting.

It takes exactly `xdsl-opt`'s flags and behaves the same, except that a
diagnostic (parse error, verifier error, pass failure) and a bad command line
are printed to stderr as `file:line:col: error: message` followed by the
offending source line, and the exit code is 1, without a Python traceback.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Sequence
from typing import IO

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from pypto_dialect.tools.diagnostics import (
    OpSpans,
    SpanRecordingParser,
    first_located,
    located_error,
    recording_diagnosed_ops,
)


class PyPTOOptMain(xDSLOptMain):
    """`xdsl-opt` whose diagnostics are `error:` lines instead of tracebacks."""

    op_spans: OpSpans

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
        parser = SpanRecordingParser(
            self.ctx,
            chunk.read().decode(),
            self.get_input_name(),
            self.op_spans,
            start_offset,
        )
        return parser.parse_module(not self.args.no_implicit_module)

    def run(self) -> None:
        with recording_diagnosed_ops() as diagnosed:
            try:
                super().run()
            except ParseError as error:
                _fail(located_error(error.span, error.msg))
            except DiagnosticException as error:
                self._report_diagnostic(error, diagnosed)

    def _report_diagnostic(
        self, error: DiagnosticException, diagnosed: list[Operation]
    ) -> None:
        located = first_located(diagnosed, self.op_spans)
        if located is not None:
            _fail(located_error(self.op_spans[located], f"'{located.name}' op {error}"))
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
