"""Helpers for the kernel mutations: a shrinking choice, and a regex match replaced."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeVar

from hypothesis import strategies as st

_T = TypeVar("_T")


def pick(draw: st.DrawFn, options: Sequence[_T]) -> _T:
    """One of `options` (not empty); shrinks to the first."""
    return options[draw(st.integers(0, len(options) - 1))]


def replace_match(
    text: str,
    draw: st.DrawFn,
    pattern: re.Pattern[str],
    new: str,
    *,
    everywhere: bool = False,
) -> str:
    """
    `text` with one match of `pattern` (if any) replaced by `new`, or (with
    `everywhere`) every match with the same text as the one drawn.
    """
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    chosen = pick(draw, matches)
    replaced = (
        [m for m in matches if m.group() == chosen.group()] if everywhere else [chosen]
    )
    for match in reversed(replaced):
        text = text[: match.start()] + new + text[match.end() :]
    return text
