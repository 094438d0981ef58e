"""
The shape of a loop (`passes.analysis.shape`): loops that the analyses cannot
tell apart have one shape; a difference the analyses read (an op, a type, an
attribute, a constant a window offset is folded from, the context) gives
another.
"""

from __future__ import annotations

import pytest
from helpers import add_one

from passes.analysis.shape import Shape, Shapes
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import walk_ops

CTX = pypto_context()


def shapes_of(*texts: str, context: Shape = ()) -> list[Shape | None]:
    """The shape of each loop of the functions `texts`, in one module."""
    module = parse_module(CTX, "\n".join(texts))
    shapes = Shapes()
    loops = [op for op in walk_ops(module) if isinstance(op, PipelineOp)]
    return [shapes.of_loop(loop, context) for loop in loops]


def renamed(text: str, name: str) -> str:
    return text.replace("@add_one", f"@{name}")


def test_copies_of_a_loop_have_one_shape():
    first, second = shapes_of(add_one(4), renamed(add_one(4), "again"))
    assert first is not None
    assert first == second


@pytest.mark.parametrize(
    "old, new",
    [
        ("stages 4", "stages 2"),  # an attribute
        ("%i, %c128", "%i, %c8"),  # the constant a window offset is folded from
        ("tile.adds", "tile.muls"),  # an op
        ("tile<128xf32", "tile<64xf32"),  # a type
    ],
)
def test_what_the_analyses_read_changes_the_shape(old: str, new: str):
    text = add_one(4)
    assert old in text
    first, second = shapes_of(text, renamed(text.replace(old, new), "other"))
    assert first != second


def test_the_context_is_part_of_the_shape():
    (first,) = shapes_of(add_one(4), context=(False,))
    (second,) = shapes_of(add_one(4), context=(True,))
    assert first != second
