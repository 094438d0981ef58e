"""
The kernel mutations of names, types and values: SSA names, types, shapes,
memory spaces, integers (extreme and huge ones), floats (NaNs with a sign or
a payload, infinities) and `stages` replaced, and ops renamed.
"""

from __future__ import annotations

import re

from hypothesis import strategies as st
from mutation_helpers import pick, replace_match
from mutation_vocabulary import (
    EXTREME_INTEGERS,
    FLOAT_LITERAL,
    INDEX_HINTS,
    INTEGER,
    OP_NAME,
    OP_NAMES,
    RESULTS,
    SHAPE,
    SHAPES,
    SPACE,
    SPACES,
    SPECIAL_FLOATS,
    SSA_NAME,
    STAGES,
    STAGES_VALUES,
    TYPE,
    TYPES,
)


def _mostly(draw: st.DrawFn) -> bool:
    """True three times in four; shrinks to False."""
    return draw(st.integers(0, 3)) > 0


def _hint(name: str) -> str:
    """The generator's name hint of a value (`%t12` -> `t`), which mostly tells its type."""
    hint = name.rstrip("0123456789")
    return "index" if hint in INDEX_HINTS and hint != name else hint


def _is_use(text: str, match: re.Match[str]) -> bool:
    """Whether an SSA name is an operand, not a result, argument or iter_arg."""
    after = text[match.end() : match.end() + 2]
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[line_start : match.start()]
    return not (after.startswith(":") or after == " =" or RESULTS.fullmatch(before))


def replace_ssa_name(text: str, draw: st.DrawFn) -> str:
    """
    An SSA name replaced by another one of the kernel (often one with the
    same hint, so the types match: a value of another iteration, a loop's own
    induction variable, a value defined later), or by an undefined one.
    """
    matches = [match for match in SSA_NAME.finditer(text) if _is_use(text, match)]
    if not matches:
        return text
    match = pick(draw, matches)
    names = sorted(set(SSA_NAME.findall(text)))
    alike = [name for name in names if _hint(name) == _hint(match.group())]
    if draw(st.booleans()):
        new = pick(draw, [*names, "%undefined", "%0", "%", "%x#1"])
    else:
        new = pick(draw, alike)
    return text[: match.start()] + new + text[match.end() :]


def replace_type(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, TYPES)
    return replace_match(text, draw, TYPE, new, everywhere=_mostly(draw))


def replace_shape(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, SHAPES)
    return replace_match(text, draw, SHAPE, new, everywhere=_mostly(draw))


def replace_memory_space(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, SPACES)
    return replace_match(text, draw, SPACE, new, everywhere=_mostly(draw))


def replace_integer(text: str, draw: st.DrawFn) -> str:
    """An integer literal (constants, stages, memberships) replaced by an extreme one."""
    new = pick(draw, EXTREME_INTEGERS)
    return replace_match(text, draw, INTEGER, new, everywhere=_mostly(draw))


def replace_float(text: str, draw: st.DrawFn) -> str:
    """A float constant replaced by a NaN (of either sign, with a payload), an infinity, -0.0."""
    new = pick(draw, SPECIAL_FLOATS)
    return replace_match(text, draw, FLOAT_LITERAL, new, everywhere=_mostly(draw))


def replace_stages(text: str, draw: st.DrawFn) -> str:
    stages = pick(draw, STAGES_VALUES)
    matches = list(STAGES.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    new = stages + (" : i64" if match.group().endswith("i64") else "")
    return text[: match.start()] + new + text[match.end() :]


def rename_op(text: str, draw: st.DrawFn) -> str:
    """An op name replaced by another: same syntax in generic form, any operands."""
    return replace_match(text, draw, OP_NAME, pick(draw, OP_NAMES))
