"""
Error reporting shared by the console tools: diagnostics located at ops,
internal errors (bugs, exit code 70), `--version`. Decoding and located
source errors are `pypto_dialect.source_text`'s, which the frontend shares.

xDSL ops do not keep where they were parsed from: `CheckedParser`
(`pypto_dialect.checked`) remembers it, `diagnosed_ops` tells
which ops a diagnostic is about (the op a verifier or pass reported; for an
interpretation error, the op that failed, then the ops around it), and
`diagnostic_text` words the report for both tools.
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Callable, Generator, Iterable, Sequence
from contextlib import contextmanager
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException

from pypto_dialect import __version__
from pypto_dialect.source_text import located_error

if TYPE_CHECKING:
    from pypto_dialect.checked import OpSpans

INTERNAL_ERROR = 70
"""The exit code of an internal error (`EX_SOFTWARE` of sysexits.h)."""


class ToolFailure(Exception):
    """An error of a tool's run, already worded for the user (one `error:` text)."""


@contextmanager
def reported_diagnostics(
    source_name: str,
    op_spans: OpSpans,
    context: str = "",
    *,
    name_op: Callable[[DiagnosticException], bool] = lambda _: True,
) -> Generator[None]:
    """
    Turn the diagnostics raised in the block into `ToolFailure`s, located at
    the op they are about (`diagnostic_text`); `name_op` says whether the
    text names the op (an error that names it itself says no).
    """
    try:
        yield
    except DiagnosticException as error:
        text = diagnostic_text(
            str(error),
            diagnosed_ops(error),
            op_spans,
            source_name,
            context=f"{context}: " if context else "",
            name_op=name_op(error),
        )
        raise ToolFailure(text) from None


def diagnosed_ops(error: BaseException) -> list[Operation]:
    """
    The ops a diagnostic is about, innermost first: each op whose
    `emit_error` raised it (or the door's `raise_at`), read off its traceback;
    else the error's own `op` (an `ExportError` raised again).
    """
    from pypto_dialect.xdsl_internals import raise_at

    receivers = {Operation.emit_error.__code__: "self", raise_at.__code__: "op"}
    found = [
        frame.f_locals.get(receivers[frame.f_code])
        for frame, _ in traceback.walk_tb(error.__traceback__)
        if frame.f_code in receivers
    ]
    ops = [op for op in reversed(found) if isinstance(op, Operation)]
    carried = getattr(error, "op", None)
    return ops or ([carried] if isinstance(carried, Operation) else [])


def diagnostic_text(
    message: str,
    diagnosed: Iterable[Operation],
    op_spans: OpSpans,
    input_name: str,
    *,
    context: str = "",
    name_op: bool = True,
    notes: Sequence[str] = (),
) -> str:
    """
    The report of a diagnostic about the ops `diagnosed`: `file:line:col:
    error: 'op' op message` at the first one parsed from the source (with the
    source line), else at the first one with a `file:line:col` location (an
    op a pass created has the location of the op it came from), else
    `input_name: error: message` followed by the `notes` (the IR xDSL
    attached, which is all there is to locate the problem by). `context` goes
    before `'op' op`, which `name_op=False` leaves out.
    """
    diagnosed = tuple(diagnosed)
    parsed = next((op for op in diagnosed if op in op_spans), None)
    if parsed is not None:
        prefix = context + (f"'{parsed.name}' op " if name_op else "")
        return located_error(op_spans[parsed], prefix + message)
    created = next(
        (op for op in diagnosed if isinstance(op.location, FileLineColLoc)), None
    )
    if created is not None:
        location = created.location
        assert isinstance(location, FileLineColLoc)
        where = f"{location.filename.data}:{location.line.data}:{location.column.data}"
        prefix = context + (f"'{created.name}' op " if name_op else "")
        return f"{where}: error: {prefix}{message}"
    return "\n".join((f"{input_name}: error: {context}{message}", *notes))


def version_text(tool: str, xdsl_version: str | None = None) -> str:
    """What `tool --version` prints; `xdsl_version` is the installed one's by default."""
    xdsl_version = version("xdsl") if xdsl_version is None else xdsl_version
    return f"{tool} {__version__} (pypto-dialect, on xdsl {xdsl_version})"


class PrintAndExit(argparse.Action):
    """
    An option that prints `text(value)` and exits, as `--help` does. `text`
    raises a `ToolFailure` for an error (exit code 1); a reader that stops
    reading (`| head`) ends the tool quietly.
    """

    def __init__(self, *args: Any, text: Callable[[Any], str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.text = text

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        try:
            print(self.text(values), flush=True)
        except ToolFailure as failure:
            print(failure, file=sys.stderr)
            parser.exit(1)
        except BrokenPipeError:
            # Python would report the closed pipe again when it flushes at exit.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        parser.exit()


def add_version_flag(parser: argparse.ArgumentParser, tool: str) -> None:
    """`--version`, which reads the package metadata only when given."""

    def text(_: object) -> str:
        return version_text(tool)

    parser.add_argument(
        "--version",
        action=PrintAndExit,
        nargs=0,
        text=text,
        help="print the version and exit",
    )


def int_at_least(minimum: int, what: str) -> Callable[[str], int]:
    """An argparse `type`: an integer of at least `minimum` (`what` words the error)."""

    def parse(text: str) -> int:
        value = int(text)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be {what}, got {value}")
        return value

    parse.__name__ = "int"  # argparse names the type in "invalid int value"
    return parse


def add_traceback_flag(parser: argparse.ArgumentParser) -> None:
    """`--traceback`, for `report_internal_error`."""
    parser.add_argument(
        "--traceback",
        action="store_true",
        help="on an internal error, print the Python traceback "
        "(or set PYPTO_TRACEBACK=1)",
    )


def report_internal_error(tool: str, error: Exception, show_traceback: bool) -> int:
    """
    Report an exception that is not a diagnostic (a bug of `tool`) on stderr,
    as two lines, or as its traceback with `--traceback` or PYPTO_TRACEBACK=1.
    Returns the exit code.
    """
    from pypto_dialect.checked import describe_exception

    if show_traceback or os.environ.get("PYPTO_TRACEBACK") == "1":
        traceback.print_exception(error)
        return INTERNAL_ERROR
    print(
        f"{tool}: error: internal error: {describe_exception(error)}", file=sys.stderr
    )
    print(
        f"{tool}: please report this bug with the input file "
        "(--traceback shows where it happened)",
        file=sys.stderr,
    )
    return INTERNAL_ERROR
