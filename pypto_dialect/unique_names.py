"""
`UniqueNames`: the first free name of `base`, `base_1`, `base_2`, ..., in
time linear in the names given out, however many share one base.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class UniqueNames:
    """The names taken in one scope; names are never given back."""

    taken: set[str] = field(default_factory=set[str])
    """Every name given out or claimed."""
    suffixes: dict[str, int] = field(default_factory=dict[str, int])
    """
    Per base, the suffix it last got: every smaller one is taken (`taken`
    only grows), so the next search starts there, and n names of one base
    cost about n probes of `taken`, not n^2/2.
    """

    def unique(self, base: str) -> str:
        """The first free name of `base`, `base_1`, `base_2`, ..., now taken."""
        count = self.suffixes.get(base, 0)
        name = f"{base}_{count}" if count else base
        while name in self.taken:
            count += 1
            name = f"{base}_{count}"
        self.suffixes[base] = count
        self.taken.add(name)
        return name
