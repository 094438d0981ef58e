"""
xDSL's interpreter implementations that ours build on, imported without
running `xdsl/interpreters/__init__.py`, which imports every interpreter of
xDSL (RISC-V, Snitch, linalg, ...): 0.2 to 0.3 s, most of `pypto-run`'s
start-up, for six modules of it that a kernel needs.

`xdsl.interpreters` is entered in `sys.modules` as the package without its
`__init__` (a module with the package's `__path__`), which is enough to
import its submodules. The first read of any other attribute of the package
(`from xdsl.interpreters import register_implementations`, as the
`constant-fold-interp` pass does) runs the `__init__` in it, so the package
is whole for whoever needs it.
"""

# ruff: noqa: E402 (the imports below need the package entered first)

from __future__ import annotations

import importlib.util
import sys


def _defer_package_init(name: str) -> None:
    """Enter package `name` without running its `__init__` until it is needed."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return  # left to the import system, which reports it
    package = importlib.util.module_from_spec(spec)
    loader = spec.loader

    def run_init(attribute: str) -> object:
        delattr(package, "__getattr__")
        loader.exec_module(package)
        return getattr(package, attribute)

    # A module's `__getattr__` answers the attributes it does not have (PEP 562).
    setattr(package, "__getattr__", run_init)  # noqa: B010
    sys.modules[name] = package
    parent, _, child = name.rpartition(".")
    setattr(sys.modules[parent], child, package)


_defer_package_init("xdsl.interpreters")

from xdsl.interpreters.arith import ArithFunctions
from xdsl.interpreters.builtin import BuiltinFunctions
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.math import MathFunctions
from xdsl.interpreters.scf import ScfFunctions

__all__ = [
    "ArithFunctions",
    "BuiltinFunctions",
    "CfFunctions",
    "FuncFunctions",
    "MathFunctions",
    "ScfFunctions",
]
