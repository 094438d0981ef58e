"""
The `pypto` xDSL dialect: PyPTO's tile level (tensors, tiles, tile ops,
pipeline loops).

`__all__` is what an embedder uses: the dialect (`PyPTO`, and
`get_all_dialects` for xDSL's registries), a context with everything a
kernel uses (`pypto_context`), parsing and verifying (`parse_module`,
`verify_module`), and which of xDSL's APIs the passes run on
(`fast_paths_enabled`, see `pypto_dialect.xdsl_internals`). Each is
imported when first used, so importing the package stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pypto_dialect.lazy import lazy_names

if TYPE_CHECKING:
    from pypto_dialect.checked import parse_module, verify_module
    from pypto_dialect.context import pypto_context
    from pypto_dialect.dialect import PyPTO
    from pypto_dialect.dialects import get_all_dialects
    from pypto_dialect.xdsl_internals import fast_paths_enabled

__version__ = "0.1.0"

__all__ = [
    "PyPTO",
    "fast_paths_enabled",
    "get_all_dialects",
    "parse_module",
    "pypto_context",
    "verify_module",
]

_HOMES = {
    "PyPTO": "pypto_dialect.dialect",
    "fast_paths_enabled": "pypto_dialect.xdsl_internals",
    "get_all_dialects": "pypto_dialect.dialects",
    "parse_module": "pypto_dialect.checked",
    "pypto_context": "pypto_dialect.context",
    "verify_module": "pypto_dialect.checked",
}
"""The module each name of `__all__` comes from."""


__getattr__ = lazy_names(__name__, _HOMES)
