"""
The `xdsl.universe` entry point: makes `xdsl-opt` know our dialects, passes,
and the PyPTO frontend and target. It lives with the tools, the one place
that may use both packages (`pypto_dialect` itself imports nothing from
`passes`). Lazy factories only, so importing it, as every xDSL tool does,
stays cheap.
"""

from xdsl.universe import Universe
from xdsl.utils.frontend import Frontend
from xdsl.utils.target import Target

from passes import get_all_passes
from pypto_dialect.dialects import get_all_dialects


def _pypto_frontend() -> type[Frontend]:
    from pypto_dialect.dsl.plugin import PyPTOFrontend

    return PyPTOFrontend


def _py_frontend() -> type[Frontend]:
    from pypto_dialect.dsl.plugin import PyFrontend

    return PyFrontend


def _pypto_target() -> type[Target]:
    from pypto_dialect.dsl.plugin import PyPTOTarget

    return PyPTOTarget


PYPTO_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
    # `py` too: xdsl-opt wants a frontend named after the file's extension,
    # even with `-f pypto`.
    all_frontends={"pypto": _pypto_frontend, "py": _py_frontend},
    all_targets={"pypto": _pypto_target},
)

FRONTEND_NAMES = tuple(PYPTO_UNIVERSE.all_frontends)
"""The names (`-f NAME`, file extensions) that mean PyPTO input."""

INPUT_FORMATS = ("mlir", *FRONTEND_NAMES)
"""The file extensions the tools read (`source_text.input_format`)."""
