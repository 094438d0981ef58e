"""A package's names imported when first used (PEP 562's module `__getattr__`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], object]:
    """
    The `__getattr__` of `package` that imports each name of `homes` from
    the module `homes` gives it, when first asked for.
    """

    def getattr_(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(home), name)

    return getattr_
