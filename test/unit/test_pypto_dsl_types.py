"""
The PyPTO frontend and target on types and literals: every row of the spec's
type table (`/shared/spec/pypto-dsl.md`) imported and exported, and literals
at and beyond the range of their types.
"""

from __future__ import annotations

import math

import pytest
from pypto_dsl_helpers import CTX, error, op_names, program, round_trip
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntegerAttr,
    bf16,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute
from xdsl.utils.exceptions import ParseError

from pypto_dialect.dsl import parse_pypto
from pypto_dialect.types import MemorySpace, TensorType, TileType
from pypto_dialect.walks import walk_ops

# --------------------------------------------------------------------------- #
# Types: every row of the spec's type table
# --------------------------------------------------------------------------- #

TYPES: list[tuple[str, Attribute, str]] = [
    # annotation, our type, how the target prints it
    (
        "pl.Tensor[[16, 64], pl.FP32]",
        TensorType([16, 64], f32),
        "pl.Tensor[[16, 64], pl.FP32]",
    ),
    *(
        (
            f"pl.Tile[[8], pl.FP16, pl.{enum}.{name}]",
            TileType([8], f16, space),
            f"pl.Tile[[8], pl.FP16, pl.Mem.{name}]",
        )
        for enum, (name, space) in zip(
            ("Mem", "MemorySpace", "Mem", "MemorySpace", "Mem", "Mem"),
            (
                ("Vec", MemorySpace.VEC),
                ("Mat", MemorySpace.MAT),
                ("Left", MemorySpace.LEFT),
                ("Right", MemorySpace.RIGHT),
                ("Acc", MemorySpace.ACC),
                ("Bias", MemorySpace.BIAS),
            ),
            strict=True,
        )
    ),
    (
        "pl.Tile[[4, 4], pl.FP32]",
        TileType([4, 4], f32, MemorySpace.VEC),
        "pl.Tile[[4, 4], pl.FP32, pl.Mem.Vec]",
    ),
    ("pl.Scalar[pl.INDEX]", IndexType(), "pl.Scalar[pl.INDEX]"),
    ("pl.Scalar[pl.BOOL]", i1, "pl.Scalar[pl.BOOL]"),
    *(
        (
            f"pl.Tensor[[8], pl.{name}]",
            TensorType([8], typ),
            f"pl.Tensor[[8], pl.{name}]",
        )
        for name, typ in (
            ("FP32", f32),
            ("FP16", f16),
            ("BF16", bf16),
            ("INT8", i8),
            ("INT16", i16),
            ("INT32", i32),
            ("INT64", i64),
        )
    ),
    *(
        (f"pl.Scalar[pl.{name}]", typ, f"pl.Scalar[pl.{name}]")
        for name, typ in (("FP32", f32), ("BF16", bf16), ("INT8", i8), ("INT64", i64))
    ),
    (
        "pl.Out[pl.Tensor[[8], pl.FP32]]",
        TensorType([8], f32),
        "pl.Tensor[[8], pl.FP32]",
    ),
    (
        "pl.InOut[pl.Tensor[[8], pl.FP32]]",
        TensorType([8], f32),
        "pl.Tensor[[8], pl.FP32]",
    ),
    (
        "pl.Tile[[8], pl.FP32, pl.Mem.Mat, pl.TileView(blayout=1, slayout=2)]",
        TileType([8], f32, MemorySpace.MAT),
        "pl.Tile[[8], pl.FP32, pl.Mem.Mat]",
    ),
]


@pytest.mark.parametrize(
    ("annotation", "typ", "printed"), TYPES, ids=[t[0] for t in TYPES]
)
def test_every_type_row_imports_and_exports(
    annotation: str, typ: Attribute, printed: str
) -> None:
    module, text = round_trip(program("pass", params=f"v: {annotation}"))
    (function,) = (op for op in walk_ops(module) if op.name == "func.func")
    assert function.regions[0].block.args[0].type == typ
    assert f"(self, v: {printed})" in text


def test_a_memref_held_in_a_variable_is_an_error() -> None:
    assert error(
        program("pass", params="v: pl.Tile[[8], pl.FP32, buf, pl.Mem.Vec]")
    ) == (
        "unsupported item 'buf' of a tile annotation: expected a memory space, "
        'pl.MemRef("name") (declared inline, not held in a variable) or '
        "pl.TileView(...)"
    )


INDEX_RANGE = "(-9223372036854775808 to 9223372036854775807)"
BIG = 100000000000000000000000


@pytest.mark.parametrize(
    ("body", "where", "message"),
    [
        (
            f"for i in pl.range({BIG}):\n    pass",
            "k.py:8:27",
            f"the literal {BIG} does not fit in a 64-bit index {INDEX_RANGE}",
        ),
        (
            f"for i in pl.pipeline(0, {BIG}, stage=2):\n    pass",
            "k.py:8:33",
            f"the literal {BIG} does not fit in a 64-bit index {INDEX_RANGE}",
        ),
        (
            "for i in pl.range(-9223372036854775809, 4):\n    pass",
            "k.py:8:27",
            "the literal -9223372036854775809 does not fit in a 64-bit index "
            + INDEX_RANGE,
        ),
        (
            "for i in pl.pipeline(8, stage=9223372036854775808):\n    pass",
            "k.py:8:39",
            "the literal 9223372036854775808 does not fit in a 64-bit integer "
            "(1 to 9223372036854775807)",
        ),
        (
            "c: pl.Scalar[pl.INT8] = 256",
            "k.py:8:33",
            "the literal 256 does not fit in pl.Scalar[pl.INT8] (8 bits: -128 to 255)",
        ),
        (
            "c: pl.Scalar[pl.INT64] = 18446744073709551616",
            "k.py:8:34",
            "the literal 18446744073709551616 does not fit in pl.Scalar[pl.INT64] "
            "(64 bits: -9223372036854775808 to 18446744073709551615)",
        ),
        (
            f"c: pl.Scalar[pl.FP32] = {10**400}",
            "k.py:8:33",
            "the literal 100000...(401 digits) does not fit in pl.Scalar[pl.FP32] "
            "(too large for a float)",
        ),
        (
            "c: pl.Scalar[pl.FP32] = 1e39",
            "k.py:8:33",
            "the literal 1e+39 does not fit in pl.Scalar[pl.FP32] "
            "(it rounds to an infinity)",
        ),
        (
            "c: pl.Scalar[pl.FP16] = -100000",
            "k.py:8:33",
            "the literal -100000 does not fit in pl.Scalar[pl.FP16] "
            "(it rounds to an infinity)",
        ),
        (
            "c: pl.Scalar[pl.FP32] = 1e400",
            "k.py:8:33",
            "the float literal is too large: it rounds to an infinity "
            '(write float("inf") for one)',
        ),
    ],
    ids=[
        "range",
        "pipeline",
        "negative",
        "stage",
        "i8",
        "i64",
        "f32",
        "f32-inf",
        "f16",
        "python-inf",
    ],
)
def test_a_literal_that_does_not_fit_is_a_located_error(
    body: str, where: str, message: str
) -> None:
    with pytest.raises(ParseError) as info:
        parse_pypto(CTX, program(body), "k.py")
    assert info.value.msg == message
    assert str(info.value).startswith(f"{where}\n")


def _constants(
    body: str, attr_type: type[IntegerAttr] | type[FloatAttr]
) -> list[float]:
    """The values of the `arith.constant`s of `attr_type` that `body` builds."""
    return [
        op.value.value.data
        for op in walk_ops(parse_pypto(CTX, program(body)))
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, attr_type)
    ]


def test_integer_literals_at_the_edges_of_their_range_fit() -> None:
    values = _constants(
        "for i in pl.pipeline(-9223372036854775808, 9223372036854775807, "
        "stage=9223372036854775807):\n"
        "    c: pl.Scalar[pl.INT8] = -128\n"
        "    d: pl.Scalar[pl.INT8] = 255",
        IntegerAttr,
    )
    assert values == [-9223372036854775808, 9223372036854775807, 1, -128, -1]


def test_float_literals_up_to_the_largest_finite_value_fit() -> None:
    values = _constants(
        "c: pl.Scalar[pl.FP16] = 65504\n"
        "d: pl.Scalar[pl.FP32] = -3.4e38\n"
        "e: pl.Scalar[pl.BF16] = 3.3e38",
        FloatAttr,
    )
    # Rounded to their types (3.3e38 is 3.2953e38 in bf16), but finite.
    assert len(values) == 3 and all(math.isfinite(v) for v in values)
    assert values[0] == 65504.0 and values[1] < -3.3e38 < 3.2e38 < values[2]


def test_an_open_tile_annotation_takes_the_space_of_the_op() -> None:
    module, text = round_trip(
        program(
            "t: pl.Tile[[16, 64], pl.BF16] = pl.tile.load(h, [0, 0], [16, 64], target_memory=pl.Mem.Mat)"
        )
    )
    assert "pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(" in text
    assert "pypto.tile.load" in op_names(module)


def test_the_floats_without_a_literal_can_be_assigned_to_a_scalar() -> None:
    body = (
        'a: pl.Scalar[pl.FP32] = float("inf")\n'
        'b: pl.Scalar[pl.FP32] = float("-inf")\n'
        'c: pl.Scalar[pl.FP16] = float("nan")\n'
        "d: pl.Scalar[pl.FP32] = a - b\n"
        "e: pl.Scalar[pl.FP16] = c * c"
    )
    values = _constants(body, FloatAttr)
    assert values[:2] == [math.inf, -math.inf] and math.isnan(values[2])
    _, text = round_trip(program(body))
    assert 'float("inf")' in text and 'float("-inf")' in text
    assert 'float("nan")' in text
