"""
The `pypto` frontend and target as xDSL sees them (`xdsl-opt -f pypto`,
`-t pypto`), registered by the `xdsl.universe` entry point.

Stock `xdsl-opt` shows a `ParseError` or a diagnostic as a traceback unless
`--parsing-diagnostics` / `--verify-diagnostics` is given. The errors raised
here are also `SystemExit`s that carry the located message: left uncaught,
they end `xdsl-opt` with that message and exit code 1, without a traceback;
with the flags, `xdsl-opt` catches and prints them as usual.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.utils.exceptions import ParseError
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target

from pypto_dialect.dsl.errors import ExportError
from pypto_dialect.dsl.frontend import parse_pypto
from pypto_dialect.dsl.target import print_pypto
from pypto_dialect.source_text import UnreadableInput, decode_source, located_error


class ExitingParseError(ParseError, SystemExit):
    """A `ParseError` that, uncaught, exits with its located message."""


class ExitingExportError(ExportError, SystemExit):
    """An `ExportError` that, uncaught, exits with its located message."""


class ExitingInputError(SystemExit):
    """Input that is not text: exits with one `error:` line."""


@dataclass(frozen=True)
class PyPTOFrontend(Frontend):
    """Reads PyPTO text (`parse_pypto`)."""

    name = "pypto"

    def parse(self, ctx: Context, input: IO[bytes], input_name: str) -> ModuleOp:
        try:
            text = decode_source(input.read())
        except UnreadableInput as error:
            raise ExitingInputError(
                f"{input_name}: error: cannot read: {error}"
            ) from None
        try:
            return parse_pypto(ctx, text, input_name)
        except ParseError as error:
            exiting = ExitingParseError(error.span, error.msg)
            exiting.code = located_error(error.span, error.msg)
            raise exiting from None


@dataclass(frozen=True)
class PyFrontend(PyPTOFrontend):
    """The same frontend under the name of the `.py` file extension."""

    name = "py"


@dataclass(frozen=True)
class PyPTOTarget(Target):
    """Prints PyPTO text (`print_pypto`)."""

    name = "pypto"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        try:
            print_pypto(module, output)
        except ExportError as error:
            exiting = ExitingExportError(*error.args)
            exiting.op = error.op
            exiting.__notes__ = getattr(error, "__notes__", [])
            exiting.code = _located(error)
            raise exiting from None


def _located(error: ExportError) -> str:
    """`file:line:col: error: 'op' op message` (without the place if the op has none)."""
    op = error.op
    name = "" if op is None else f"'{op.name}' op "
    location = None if op is None else op.location
    if isinstance(location, FileLineColLoc):
        where = (
            f"{location.filename.data}:{location.line.data}:{location.column.data}: "
        )
    else:
        where = ""
    return f"{where}error: {name}{error}"
