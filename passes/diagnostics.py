"""How the passes report a user error."""

from typing import NoReturn

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from passes.schedule.engines import (
    CostModel,
    CostTableError,
    default_costs,
    load_costs,
)


def fail(op: Operation, message: str) -> NoReturn:
    """Raise `message` as a pass failure located at `op`."""
    op.emit_error(message, PassFailedException(message))


def cost_model(pass_name: str, path: str) -> CostModel:
    """
    The cost table a pass option names (`path`; empty: the bundled one); one
    that cannot be used is a pass failure naming the pass, the file and the
    field.
    """
    try:
        return load_costs(path) if path else default_costs()
    except CostTableError as error:
        raise PassFailedException(
            f"{pass_name}: {error.where(path)}: {error.message}"
        ) from None
