"""
Python names for the values the target prints: from the SSA name hints,
made valid and unique. xDSL drops a trailing `_<n>` from every hint, so
`base`, `base_1`, `base_2` are the names of one base: reading the printed
text back gives every value the hint it was printed from, and printing again
gives the same names.
"""

from __future__ import annotations

import keyword
import re
from functools import lru_cache

from pypto_dialect.dsl.tables import MODULE_ALIAS
from pypto_dialect.unique_names import UniqueNames

RESERVED = frozenset({MODULE_ALIAS, "self", "float", "tuple"})
"""Names the printed text uses for itself."""

_INVALID = re.compile(r"[^A-Za-z0-9_]")
_SUFFIX = re.compile(r"_[0-9]+$")


def is_python_name(name: str) -> bool:
    """Whether `name` can name a class or a method as it is."""
    return name.isidentifier() and not keyword.iskeyword(name)


@lru_cache(maxsize=4096)  # a program repeats a few hints many times
def python_base(hint: str | None, fallback: str) -> str:
    """A valid Python identifier, without a `_<n>` suffix, for `hint`."""
    base = _SUFFIX.sub("", _INVALID.sub("_", hint or ""))
    if not base:
        return fallback
    if base[0].isdigit():
        base = f"v{base}"
    if keyword.iskeyword(base) or keyword.issoftkeyword(base) or base in RESERVED:
        base = f"{base}_"
    return base


class Names(UniqueNames):
    """The names taken in one function (or one program's classes)."""

    def new(self, hint: str | None, fallback: str) -> str:
        """The first free name of the Python base of `hint`, `base_1`, ..."""
        return self.unique(python_base(hint, fallback))

    def symbol(self, name: str | None, fallback: str) -> str:
        """A class name: the symbol itself if it is a free Python name, else a new one."""
        if name is not None and is_python_name(name) and name not in self.taken:
            self.taken.add(name)
            return name
        return self.new(name, fallback)
