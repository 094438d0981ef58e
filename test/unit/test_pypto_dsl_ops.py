"""
The PyPTO frontend and target on ops and statements: every row of the spec's
op table (`/shared/spec/pypto-dsl.md`) imported and exported, membership
attributes, scalar expressions, loops, `if`, returns and the tensor rule.
"""

from __future__ import annotations

import pytest
from pypto_dsl_helpers import CTX, export, op_names, program, round_trip
from xdsl.dialects.builtin import IndexType
from xdsl.parser import Parser

from pypto_dialect.dsl import parse_pypto
from pypto_dialect.walks import walk_ops

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
        "pl.tile.maximums(t, 0.5)",
    ),
    (TILE + "z = pl.tile.mins(t, 0.5)", "pypto.tile.mins", "pl.tile.minimums(t, 0.5)"),
    (
        TILE + "z = pl.tile.maximums(t, 0.5)",
        "pypto.tile.maxs",
        "pl.tile.maximums(t, 0.5)",
    ),
    (
        TILE + "z = pl.tile.minimums(t, 0.5)",
        "pypto.tile.mins",
        "pl.tile.minimums(t, 0.5)",
    ),
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
        "r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, t)",
    ),
    (TILE + "r = pl.tile.row_max(t, t)", "pypto.tile.row_max", "pl.tile.row_max(t, t)"),
    (
        TILE + "r = pl.tile.row_max(t)",
        "pypto.tile.row_max",
        "tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], "
        "dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
        "        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_max(t, tmp)",
    ),
    (
        TILE + "s = pl.tile.create([32, 64], dtype=pl.FP32)\nr = pl.tile.row_sum(t, s)",
        "pypto.tile.row_sum",
        "pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)\n"
        "        r: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.row_sum(t, tmp)",
    ),
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
        "f: pl.Tile[[4, 4], pl.INT32, pl.Mem.Vec] = pl.tile.full([4, 4], dtype=pl.INT32, value=3)",
        "pypto.tile.full",
        "pl.Tile[[4, 4], pl.INT32, pl.Mem.Vec] = pl.tile.full([4, 4], dtype=pl.INT32, value=3)",
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
