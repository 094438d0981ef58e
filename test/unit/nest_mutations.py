"""
The kernel mutations that add deep nests: of pipelines or `scf.if`s, of array
attributes, of types.
"""

from __future__ import annotations

from hypothesis import strategies as st
from mutation_helpers import pick, replace_match
from mutation_vocabulary import NEST_DEPTHS, TYPE


def _insert_before_first_constant(text: str, inserted: str) -> str:
    """`inserted` as lines before the first constant of the kernel (in its entry block)."""
    lines = text.splitlines(keepends=True)
    index = next(
        (index for index, line in enumerate(lines) if "arith.constant" in line), 0
    )
    lines.insert(index, inserted)
    return "".join(lines)


def nest_loops(text: str, draw: st.DrawFn) -> str:
    """A deep nest of pipelines or `scf.if`s at the start of the kernel."""
    depth = pick(draw, NEST_DEPTHS)
    if draw(st.booleans()):
        stages = pick(draw, ("1", "2", "4"))
        trip = pick(draw, ("%nest_one", "%nest_two"))
        openings = [
            f"pypto.pipeline %nest_i{level} = %nest_zero to {trip} step %nest_one "
            f"stages {stages} {{\n"
            for level in range(depth)
        ]
    else:
        openings = ["scf.if %nest_true {\n"] * depth
    nest = (
        "%nest_zero = arith.constant 0 : index\n"
        "%nest_one = arith.constant 1 : index\n"
        "%nest_two = arith.constant 2 : index\n"
        "%nest_true = arith.constant true\n" + "".join(openings) + "}\n" * depth
    )
    return _insert_before_first_constant(text, nest)


def deep_attribute(text: str, draw: st.DrawFn) -> str:
    """A deeply nested array attribute, or a deeply nested type, in the kernel."""
    depth = pick(draw, NEST_DEPTHS)
    if draw(st.booleans()):
        attribute = "[" * depth + "0" + "]" * depth
        op = f'"arith.constant"() <{{value = 0 : index}}> {{deep = {attribute}}} : () -> index\n'
        return _insert_before_first_constant(text, f"%deep = {op}")
    return replace_match(text, draw, TYPE, "tuple<" * depth + "f32" + ">" * depth)
