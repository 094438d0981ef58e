"""The target's error: what has no PyPTO form, raised at the op."""

from __future__ import annotations

from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import DiagnosticException


class ExportError(DiagnosticException):
    """An op (`op`) that has no PyPTO form; raised through `op.emit_error`."""

    op: Operation | None = None


def fail(op: Operation, message: str) -> NoReturn:
    """Raise the `ExportError` of `op` (the message as in a verifier: without the op's name)."""
    error = ExportError(message)
    error.op = op
    op.emit_error(message, error)
