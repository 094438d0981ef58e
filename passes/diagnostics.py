"""How the passes report a user error."""

from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException


def fail(op: Operation, message: str) -> NoReturn:
    """Raise `message` as a pass failure located at `op`."""
    op.emit_error(message, PassFailedException(message))
