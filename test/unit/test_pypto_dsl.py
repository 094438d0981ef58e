"""
The PyPTO frontend and target, table by table: every row of the spec's type
table and op table (`/shared/spec/pypto-dsl.md`) imported and exported, the
statements, the tensor rule, and the API (`parse_pypto`, `print_pypto`,
the xDSL plugin).
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap
from io import BytesIO, StringIO
from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    FloatAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    bf16,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.universe import Universe
from xdsl.utils.exceptions import ParseError

from pypto_dialect.checked import OpSpans
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import ExportError, parse_pypto, print_pypto
from pypto_dialect.dsl.plugin import (
    ExitingExportError,
    ExitingParseError,
    PyPTOFrontend,
    PyPTOTarget,
)
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    kernel_names,
    random_inputs,
    run_kernel,
)
from pypto_dialect.types import MemorySpace, TensorType, TileType
from pypto_dialect.walks import walk_ops

CTX = pypto_context()

PARAMS = (
    "x: pl.Tensor[[16, 64], pl.FP32], h: pl.Tensor[[16, 64], pl.BF16], "
    "a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], "
    "n: pl.Scalar[pl.INDEX]"
)


def program(body: str, params: str = PARAMS, returns: str = "") -> str:
    """A one-method PyPTO program around `body`."""
    code = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n    @pl.function\n"
        f"    def k(self, {params}){returns}:\n{code}\n"
    )


def export(module: ModuleOp) -> str:
    stream = StringIO()
    print_pypto(module, stream)
    return stream.getvalue()


def round_trip(text: str) -> tuple[ModuleOp, str]:
    """Import `text`, export it; check that the export is a fixed point."""
    module = parse_pypto(CTX, text, "k.py")
    exported = export(module)
    assert export(parse_pypto(CTX, exported, "again.py")) == exported
    return module, exported


def op_names(module: Operation) -> set[str]:
    return {op.name for op in walk_ops(module)}


def error(text: str) -> str:
    with pytest.raises(ParseError) as info:
        parse_pypto(CTX, text, "k.py")
    return info.value.msg


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


def test_a_tile_with_a_memref_is_an_error() -> None:
    assert error(
        program("pass", params="v: pl.Tile[[8], pl.FP32, buf, pl.Mem.Vec]")
    ) == (
        "a tile with a MemRef ('buf') is not supported: expected a memory space or "
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
            f"the literal {10**400} does not fit in pl.Scalar[pl.FP32] "
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


# --------------------------------------------------------------------------- #
# Tile ops: every row of the spec's op table
# --------------------------------------------------------------------------- #

TILE = "t = pl.tile.load(x, [0, 0], [16, 64])\n"
ROW = "r = pl.tile.row_sum(t, t)\n"
MATMUL_OPERANDS = (
    "l = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Left)\n"
    "q = pl.tile.load(b, [0, 0], [64, 32], target_memory=pl.Mem.Right)\n"
)

OPS: list[tuple[str, str, str]] = [
    # PyPTO body, the op it builds, what the target prints for it
    (
        "t = pl.tile.load(x, [0, n], [16, 32], [16, 32], target_memory=pl.Mem.Mat)",
        "pypto.tile.load",
        "pl.tile.load(x, [0, n], [16, 32], [16, 32], target_memory=pl.Mem.Mat)",
    ),
    (
        TILE + "d2 = pl.tile.store(t, [0, 0], x)",
        "pypto.tile.store",
        "x_1: pl.Tensor[[16, 64], pl.FP32] = pl.tile.store(t, [0, 0], x)",
    ),
    (
        TILE + "d2 = pl.tile.store(t, [0, 0], x, [16, 64])",
        "pypto.tile.store",
        "pl.tile.store(t, [0, 0], x)",
    ),
    (
        TILE + "e = pl.tile.read(t, [1, 2])",
        "pypto.tile.read",
        "e: pl.Scalar[pl.FP32] = pl.tile.read(t, [1, 2])",
    ),
    (
        TILE + "pl.tile.write(t, [1, 2], 0.5)\nu = pl.tile.exp(t)",
        "pypto.tile.write",
        "t_1: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.write(t, [1, 2], 0.5)\n        u: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.exp(t_1)",
    ),
    (
        "m = pl.tile.load(a, [0, 0], [16, 64], target_memory=pl.Mem.Mat)\n"
        "s = pl.tile.extract(m, 0, 32, [16, 32], target_memory=pl.Mem.Left)",
        "pypto.tile.extract",
        "pl.tile.extract(m, 0, 32, [16, 32], target_memory=pl.Mem.Left)",
    ),
    (
        TILE + "m = pl.tile.move(t, target_memory=pl.Mem.Mat)",
        "pypto.tile.move",
        "pl.tile.move(t, target_memory=pl.Mem.Mat)",
    ),
    (
        MATMUL_OPERANDS + "c = pl.tile.matmul(l, q)",
        "pypto.tile.matmul",
        "c: pl.Tile[[16, 32], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(l, q)",
    ),
    (
        MATMUL_OPERANDS
        + "c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Acc] = pl.tile.matmul(l, q)",
        "pypto.tile.matmul",
        "c: pl.Tile[[16, 32], pl.FP16, pl.Mem.Acc] = pl.tile.matmul(l, q)",
    ),
    (
        MATMUL_OPERANDS + "c = pl.tile.matmul(l, q)\nd = pl.tile.matmul_acc(c, l, q)",
        "pypto.tile.matmul_acc",
        "pl.tile.matmul_acc(c, l, q)",
    ),
    *(
        (
            TILE + f"z = pl.tile.{name}(t, t)",
            f"pypto.tile.{name}",
            f"pl.tile.{name}(t, t)",
        )
        for name in ("add", "sub", "mul", "div")
    ),
    *(
        (
            TILE + f"z = pl.tile.{name}(t, 2.0)",
            f"pypto.tile.{name}s",
            f"pl.tile.{name}s(t, 2.0)",
        )
        for name in ("add", "sub", "mul", "div")
    ),
    *(
        (
            TILE + f"z = pl.tile.{name}s(t, 2)",
            f"pypto.tile.{name}s",
            f"pl.tile.{name}s(t, 2.0)",
        )
        for name in ("add", "sub", "mul", "div")
    ),
    (TILE + "z = pl.tile.maximum(t, t)", "pypto.tile.max", "pl.tile.maximum(t, t)"),
    (TILE + "z = pl.tile.minimum(t, t)", "pypto.tile.min", "pl.tile.minimum(t, t)"),
    (
        TILE + "z = pl.tile.maximum(t, 0.5)",
        "pypto.tile.maxs",
        "pl.tile.maximum(t, 0.5)",
    ),
    (TILE + "z = pl.tile.mins(t, 0.5)", "pypto.tile.mins", "pl.tile.minimum(t, 0.5)"),
    *(
        (TILE + f"z = pl.tile.{name}(t)", f"pypto.tile.{name}", f"pl.tile.{name}(t)")
        for name in ("exp", "neg", "abs", "sqrt", "rsqrt", "recip", "relu")
    ),
    (
        TILE + "z = pl.tile.cast(t, target_type=pl.BF16)",
        "pypto.tile.cast",
        "z: pl.Tile[[16, 64], pl.BF16, pl.Mem.Vec] = pl.tile.cast(t, target_type=pl.BF16)",
    ),
    (
        TILE + "r = pl.tile.row_sum(t, t)",
        "pypto.tile.row_sum",
        "r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t)",
    ),
    (TILE + "r = pl.tile.row_max(t, t)", "pypto.tile.row_max", "pl.tile.row_max(t)"),
    *(
        (
            TILE + ROW + f"z = pl.tile.row_expand_{name}(t, r)",
            f"pypto.tile.row_expand_{name}",
            f"pl.tile.row_expand_{name}(t, r)",
        )
        for name in ("add", "sub", "mul", "div")
    ),
    (
        "f = pl.tile.full([16, 64], dtype=pl.FP32, value=1.5)",
        "pypto.tile.full",
        "f: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.full([16, 64], dtype=pl.FP32, value=1.5)",
    ),
    (
        "f: pl.Tile[[4, 4], pl.INT32, pl.Mem.Acc] = pl.tile.full([4, 4], dtype=pl.INT32, value=3)",
        "pypto.tile.full",
        "pl.Tile[[4, 4], pl.INT32, pl.Mem.Acc] = pl.tile.full([4, 4], dtype=pl.INT32, value=3)",
    ),
    (
        TILE + "pl.tile.tpush_to_aiv(t, split=0)",
        "pypto.tile.tpush_to_aiv",
        "pl.tile.tpush_to_aiv(t, split=0)",
    ),
    (
        TILE + "pl.tile.tpush_to_aic(t)",
        "pypto.tile.tpush_to_aic",
        "pl.tile.tpush_to_aic(t, split=0)",
    ),
    (
        "e: pl.Tile[[16, 64], pl.FP32] = pl.tile.tpop_from_aic(split=0)",
        "pypto.tile.tpop_from_aic",
        "e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.tpop_from_aic(split=0)",
    ),
    (
        "e: pl.Tile[[16, 64], pl.FP32, pl.Mem.Mat] = pl.tile.tpop_from_aiv()",
        "pypto.tile.tpop_from_aiv",
        "pl.tile.tpop_from_aiv(split=0)",
    ),
]


@pytest.mark.parametrize(
    ("body", "op", "printed"), OPS, ids=[f"{i}-{o[1]}" for i, o in enumerate(OPS)]
)
def test_every_op_row_imports_and_exports(body: str, op: str, printed: str) -> None:
    module, text = round_trip(program(body))
    assert op in op_names(module)
    assert printed in text


def test_every_tile_op_of_the_dialect_has_a_row() -> None:
    from pypto_dialect.tile import TILE_OPS

    covered = {op for _, op, _ in OPS}
    assert {op.name for op in TILE_OPS} <= covered


def test_membership_attributes_round_trip_on_any_call() -> None:
    module, text = round_trip(
        program(
            'a = pl.tile.load(x, [0, 0], [16, 64], attrs={"pipeline_membership": "0:1, 2:0"})\n'
            'b = pl.max(n, 1, attrs={"pipeline_membership": "3:3"})\n'
            'for i in pl.range(4, attrs={"pipeline_membership": "1:0"}):\n    pass'
        )
    )
    assert 'attrs={"pipeline_membership": "0:1,2:0"})' in text
    assert 'pl.max(n, 1, attrs={"pipeline_membership": "3:3"})' in text
    assert 'pl.range(0, 4, 1, attrs={"pipeline_membership": "1:0"})' in text
    memberships = [
        str(op.attributes["pypto.pipeline_membership"])
        for op in walk_ops(module)
        if op.attributes
    ]
    assert memberships == [
        "#pypto.membership<0:1, 2:0>",
        "#pypto.membership<3:3>",
        "#pypto.membership<1:0>",
    ]


# --------------------------------------------------------------------------- #
# Statements
# --------------------------------------------------------------------------- #

SCALARS: list[tuple[str, str, str]] = [
    ("m = n + 1", "arith.addi", "m: pl.Scalar[pl.INDEX] = n + 1"),
    ("m = n - 1", "arith.subi", "n - 1"),
    ("m = 2 * n", "arith.muli", "2 * n"),
    ("m = n // 3", "arith.floordivsi", "n // 3"),
    ("m = n % 3", "arith.remsi", "n % 3"),
    ("m = -n", "arith.subi", "0 - n"),
    ("m = pl.min(n, 4)", "arith.minsi", "pl.min(n, 4)"),
    ("m = pl.max(n, 4)", "arith.maxsi", "pl.max(n, 4)"),
    ("m: pl.Scalar[pl.INT32] = 2 * 3", "arith.muli", "m: pl.Scalar[pl.INT32] = 2 * 3"),
    (
        "m: pl.Scalar[pl.FP32] = 1.5 / 3",
        "arith.divf",
        "m: pl.Scalar[pl.FP32] = 1.5 / 3.0",
    ),
    ("m: pl.Scalar[pl.FP16] = 1.5 - 1", "arith.subf", "1.5 - 1.0"),
    ("m = 1.5 * 2.0\nk = -m", "arith.negf", "k: pl.Scalar[pl.FP32] = -m"),
    ("m = pl.min(0.5, 2.0)", "arith.minimumf", "pl.min(0.5, 2.0)"),
    ("m = pl.max(0.5, 2.0)", "arith.maximumf", "pl.max(0.5, 2.0)"),
    ("m = n\nm += 2", "arith.addi", "m: pl.Scalar[pl.INDEX] = n + 2"),
    ("c = n < 4", "arith.cmpi", "c: pl.Scalar[pl.BOOL] = n < 4"),
    *(
        (f"c = n {op} 4", "arith.cmpi", f"n {op} 4")
        for op in ("==", "!=", "<=", ">", ">=")
    ),
    ("c = 1.5 < 2.5", "arith.cmpf", "1.5 < 2.5"),
    ('m = float("inf") * 1.0', "arith.mulf", 'float("inf") * 1.0'),
    ("m = -2.5 * 1.0", "arith.mulf", "-2.5 * 1.0"),
]


@pytest.mark.parametrize(
    ("body", "op", "printed"), SCALARS, ids=[s[0] for s in SCALARS]
)
def test_scalar_expressions(body: str, op: str, printed: str) -> None:
    module, text = round_trip(program(body))
    assert op in op_names(module)
    assert printed in text


def test_loops_and_their_forms() -> None:
    module, text = round_trip(
        program(
            """
            for i in pl.range(n):
                pass
            for j in pl.range(1, n):
                pass
            for k in pl.pipeline(0, n, 2):
                pass
            for p, (acc, o) in pl.pipeline(4, init_values=(0, x), stage=3, overlap_stores=False):
                t = pl.tile.load(x, [0, 0], [16, 64])
                o2 = pl.tile.store(t, [0, 0], o)
                acc2 = acc + p
                total, o3 = pl.yield_(acc2, o2)
            last = pl.tile.load(o3, [0, 0], [16, 64])
            """
        )
    )
    assert "for i in pl.range(0, n, 1):" in text
    assert "for j in pl.range(1, n, 1):" in text
    assert "for k in pl.pipeline(0, n, 2, stage=1):" in text
    assert (
        "for p, (acc, x_1) in pl.pipeline(0, 4, 1, init_values=(0, x), stage=3, overlap_stores=False):"
        in text
    )
    assert "total, x_3 = pl.yield_(acc2, x_2)" in text
    assert "pl.tile.load(x_3, [0, 0]" in text
    (pipeline,) = (
        op for op in walk_ops(module) if op.name == "pypto.pipeline" and op.results
    )
    assert [r.type for r in pipeline.results] == [IndexType()]  # the tensor is dropped


def test_if_with_results_and_a_threaded_tensor() -> None:
    module, text = round_trip(
        program(
            """
            t = pl.tile.load(x, [0, 0], [16, 64])
            if n > 2:
                u = pl.tile.exp(t)
                o = pl.tile.store(u, [0, 0], x)
                r, o2 = pl.yield_(u, o)
            elif n == 0:
                r, o2 = pl.yield_(t, x)
            else:
                r, o2 = pl.yield_(t, x)
            pl.tile.store(r, [0, 0], o2)
            """
        )
    )
    assert "if n > 2:" in text
    assert "r, x_2 = pl.yield_(u, x_1)" in text
    assert "        else:\n            if n == 0:" in text
    ifs = [op for op in walk_ops(module) if op.name == "scf.if"]
    assert [len(op.results) for op in ifs] == [1, 1]


def test_returns() -> None:
    _, text = round_trip(
        program(
            "t = pl.tile.load(x, [0, 0], [16, 64])\no = pl.tile.store(t, [0, 0], x)\nreturn o, n",
            returns=" -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.INDEX]]",
        )
    )
    assert ") -> tuple[pl.Tensor[[16, 64], pl.FP32], pl.Scalar[pl.INDEX]]:" in text
    assert "return x_1, n" in text


def test_a_constant_whose_type_a_literal_cannot_give_is_named() -> None:
    text = (
        "func.func @k() -> i32 {\n  %c0 = arith.constant 0 : index\n  %c4 = arith.constant 4 : index\n"
        "  %c1 = arith.constant 1 : index\n  %seven = arith.constant 7 : i32\n"
        "  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %seven) -> (i32) {\n"
        "    %b = arith.addi %a, %seven : i32\n    scf.yield %b : i32\n  }\n  func.return %r : i32\n}\n"
    )
    exported = export(Parser(CTX, text).parse_module())
    assert (
        "seven: pl.Scalar[pl.INT32] = 7\n        for i, (a,) in pl.range(0, 4, 1, init_values=(seven,)):"
        in exported
    )
    assert "b: pl.Scalar[pl.INT32] = a + 7" in exported
    assert export(parse_pypto(CTX, exported)) == exported


# --------------------------------------------------------------------------- #
# The API and the plugin
# --------------------------------------------------------------------------- #


def test_ops_know_their_python_source() -> None:
    spans: OpSpans = {}
    module = parse_pypto(
        CTX, program("t = pl.tile.load(x, [0, 0], [16, 64])"), "k.py", op_spans=spans
    )
    (load,) = (op for op in walk_ops(module) if op.name == "pypto.tile.load")
    assert isinstance(load.location, FileLineColLoc)
    assert (
        load.location.filename.data,
        load.location.line.data,
        load.location.column.data,
    ) == ("k.py", 8, 13)
    assert load in spans


def test_the_input_is_never_imported_or_executed() -> None:
    probe = (
        "import sys\n"
        "from pypto_dialect.context import pypto_context\n"
        "from pypto_dialect.dsl import parse_pypto\n"
        "text = 'import pypto.language as pl\\n@pl.program\\nclass P:\\n    print(\"ran\")\\n'\n"
        "try:\n    parse_pypto(pypto_context(), text)\nexcept Exception as e:\n    print(type(e).__name__)\n"
        "print('pypto' in sys.modules)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["ParseError", "False"]


def test_print_pypto_raises_an_export_error_at_the_op() -> None:
    module = Parser(
        CTX,
        "func.func @f(%x: f32) -> f32 {\n  %y = math.absf %x : f32\n  func.return %y : f32\n}",
    ).parse_module()
    with pytest.raises(ExportError) as info:
        export(module)
    assert str(info.value) == "has no PyPTO form"
    assert info.value.op is not None and info.value.op.name == "math.absf"


def test_the_universe_registers_the_frontend_and_the_target() -> None:
    multiverse = Universe.get_multiverse()
    assert multiverse.all_frontends["pypto"]() is PyPTOFrontend
    assert multiverse.all_frontends["py"]().name == "py"
    assert multiverse.all_targets["pypto"]() is PyPTOTarget


def test_the_plugin_errors_exit_cleanly_from_stock_xdsl_opt() -> None:
    with pytest.raises(ExitingParseError) as parse_info:
        PyPTOFrontend().parse(CTX, BytesIO(b"x = (\n"), "bad.py")
    assert isinstance(parse_info.value, ParseError | SystemExit)
    assert str(parse_info.value.code).startswith(
        "bad.py:1:5: error: Python syntax error"
    )
    module = Parser(CTX, "func.func private @f()").parse_module()
    with pytest.raises(ExitingExportError) as export_info:
        PyPTOTarget().emit(CTX, module, StringIO())
    assert (
        str(export_info.value.code)
        == "error: 'func.func' op a function declaration has no PyPTO form"
    )


# --------------------------------------------------------------------------- #
# The bundled examples and their PyPTO twins
# --------------------------------------------------------------------------- #

EXAMPLES = Path(__file__).parents[2] / "examples"
TWINS = sorted(EXAMPLES.glob("*.mlir"))


def test_every_example_has_a_pypto_twin() -> None:
    assert TWINS
    assert {p.stem for p in TWINS} == {
        p.stem for p in (EXAMPLES / "pypto").glob("*.py")
    }


@pytest.mark.parametrize("mlir", TWINS, ids=[p.stem for p in TWINS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_pypto_twin_runs_bit_identically(mlir: Path, seed: int) -> None:
    original = Parser(CTX, mlir.read_text(), str(mlir)).parse_module()
    twin_path = EXAMPLES / "pypto" / f"{mlir.stem}.py"
    twin = parse_pypto(CTX, twin_path.read_text(), str(twin_path))
    exported = parse_pypto(CTX, export(original), "exported.py")
    (entry,) = kernel_names(original)
    inputs = random_inputs(find_kernel(original, entry), seed)
    expected = run_kernel(original, entry, inputs)
    for module in (twin, exported):
        assert compare_runs(expected, run_kernel(module, entry, inputs)) == []


def test_programs_several_classes_an_alias_and_methods_without_self() -> None:
    text = (
        "from pypto import language as pypl\n\n\n"
        "@pypl.program\nclass A:\n"
        "    @pypl.function(strict_ssa=True)\n"
        "    def kernel(a: pypl.Tensor[[8], pypl.FP32], n: pypl.Scalar[pypl.INDEX]):\n"
        "        t = pypl.tile.load(a, [0], [8])\n\n\n"
        "@pypl.program\nclass B:\n    pass\n"
    )
    module, exported = round_trip(text)
    assert [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, ModuleOp) and op.sym_name
    ] == ["A", "B"]
    assert (
        "    def kernel(self, a: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
        in exported
    )
    assert exported.endswith("# pypto.program: B\n@pl.program\nclass B:\n    pass\n")


def test_a_module_without_a_name_prints_as_program() -> None:
    module = Parser(CTX, "func.func @f() {\n  func.return\n}\n").parse_module()
    assert export(module) == (
        "# pypto.program: Program\nimport pypto.language as pl\n\n\n@pl.program\n"
        "class Program:\n    @pl.function\n    def f(self):\n        pass\n"
    )
