"""
The kernel mutations that edit text blind to its meaning: tokens deleted,
duplicated, swapped or replaced, lines deleted, duplicated or moved (a
definition after its uses), truncation, inserted characters, a byte order
mark.
"""

from __future__ import annotations

from hypothesis import strategies as st
from mutation_helpers import pick, replace_match
from mutation_vocabulary import INSERTIONS, TOKEN


def delete_token(text: str, draw: st.DrawFn) -> str:
    return replace_match(text, draw, TOKEN, "")


def duplicate_token(text: str, draw: st.DrawFn) -> str:
    matches = list(TOKEN.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    return text[: match.end()] + " " + match.group() + text[match.end() :]


def swap_tokens(text: str, draw: st.DrawFn) -> str:
    matches = list(TOKEN.finditer(text))
    if len(matches) < 2:
        return text
    first = draw(st.integers(0, len(matches) - 2))
    second = first + 1 if draw(st.booleans()) else pick(draw, range(len(matches)))
    a, b = sorted((matches[first], matches[second]), key=lambda m: m.start())
    if a.start() == b.start():
        return text
    return (
        text[: a.start()]
        + b.group()
        + text[a.end() : b.start()]
        + a.group()
        + text[b.end() :]
    )


def replace_token(text: str, draw: st.DrawFn) -> str:
    tokens = [match.group() for match in TOKEN.finditer(text)]
    if not tokens:
        return text
    return replace_match(text, draw, TOKEN, pick(draw, tokens))


def delete_line(text: str, draw: st.DrawFn) -> str:
    lines = text.splitlines(keepends=True)
    del lines[pick(draw, range(len(lines)))]
    return "".join(lines)


def duplicate_line(text: str, draw: st.DrawFn) -> str:
    lines = text.splitlines(keepends=True)
    index = pick(draw, range(len(lines)))
    lines.insert(index, lines[index])
    return "".join(lines)


def move_line(text: str, draw: st.DrawFn) -> str:
    """Move a line elsewhere: a use before its definition, an op out of its block."""
    lines = text.splitlines(keepends=True)
    line = lines.pop(pick(draw, range(len(lines))))
    lines.insert(pick(draw, range(len(lines) + 1)), line)
    return "".join(lines)


def define_after_use(text: str, draw: st.DrawFn) -> str:
    """
    A one-line definition of the function's own block (outside any loop)
    moved to the end of that block, after its uses.
    """
    lines = text.splitlines(keepends=True)
    returns = [i for i, line in enumerate(lines) if "func.return" in line]
    if not returns:
        return text
    end = returns[-1]
    indent = lines[end][: len(lines[end]) - len(lines[end].lstrip())]
    definitions = [
        index
        for index, line in enumerate(lines[:end])
        if line.startswith(indent + "%") and not line.rstrip().endswith("{")
    ]
    if not definitions:
        return text
    line = lines.pop(pick(draw, definitions))
    lines.insert(end - 1, line)
    return "".join(lines)


def prepend_byte_order_mark(text: str, draw: st.DrawFn) -> str:
    """A UTF-8 byte order mark before the text (which Python and our tools skip)."""
    return "\ufeff" + text


def truncate(text: str, draw: st.DrawFn) -> str:
    return text[: draw(st.integers(0, len(text)))]


def insert_characters(text: str, draw: st.DrawFn) -> str:
    position = draw(st.integers(0, len(text)))
    if draw(st.booleans()):
        inserted = pick(draw, INSERTIONS)
    else:
        inserted = draw(st.text(min_size=1, max_size=8))
    return text[:position] + inserted + text[position:]
