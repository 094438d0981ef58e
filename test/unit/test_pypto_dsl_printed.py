"""
The PyPTO frontend on programs as PyPTO's own printer writes them (annotated
yield targets, `@pl.function(strict_ssa=True)`, `pl.range(stop)`, keywords in
its order, `pl.const`, `mode='round'`, `pl.tile.create` scratch tiles), and
the scratch tile of the row reductions both ways.
"""

from __future__ import annotations

import gc
import io
from pathlib import Path

import pytest
from pypto_dsl_helpers import CTX, error, export, program, round_trip
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, i32

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect import tile
from pypto_dialect.checked import parse_module
from pypto_dialect.dsl import parse_pypto, print_pypto
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    random_inputs,
    run_kernel,
)
from pypto_dialect.tools.report import main as pypto_report
from pypto_dialect.walks import walk_ops

ROOT = Path(__file__).parents[2]

# A kernel of our own, in the conventions of PyPTO's printer: every assignment
# annotated, a single yield target annotated, `pl.range` with the fewest
# bounds, `stage=` before `init_values=`, `pl.const` for a literal of a dtype a
# bare literal lacks, `mode='round'` on a cast, a layout on a row result.
PRINTED = """\
# pypto.program: Printed
import pypto.language as pl


@pl.program
class Printed:
    @pl.function(type=pl.FunctionType.InCore, strict_ssa=True)
    def kernel(self, x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 1], pl.FP32]], n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INT32]:
        for i, (count, out_1) in pl.pipeline(0, 64, 16, stage=2, init_values=(pl.const(0, pl.INT32), out)):
            t: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [i, 0], [16, 64], [16, 64], target_memory=pl.Mem.Vec)
            tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec, pl.TileView(blayout=pl.TileLayout.col_major)] = pl.tile.row_max(t, tmp)
            h: pl.Tile[[16, 1], pl.BF16, pl.Mem.Vec] = pl.tile.cast(m, target_type=pl.BF16, mode='round')
            w: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.cast(h, target_type=pl.FP32, mode='round')
            c: pl.Tile[[16, 1], pl.FP32, pl.Mem.Vec] = pl.tile.maximums(w, pl.const(0.5, pl.FP32))
            out_2: pl.Tensor[[64, 1], pl.FP32] = pl.tile.store(c, [i, 0], out_1)
            next: pl.Scalar[pl.INT32] = count + pl.const(1, pl.INT32)
            total, out_3 = pl.yield_(next, out_2)
        for j, (s,) in pl.range(n, init_values=(total,)):
            s_1: pl.Scalar[pl.INT32] = s + pl.const(2, pl.INT32)
            r: pl.Scalar[pl.INT32] = pl.yield_(s_1)
        if n == 0:
            q: pl.Scalar[pl.INT32] = pl.yield_(pl.const(7, pl.INT32))
        else:
            q: pl.Scalar[pl.INT32] = pl.yield_(r)
        return q
"""


def _lowered(text: str) -> ModuleOp:
    module = parse_pypto(CTX, text, "printed.py")
    LowerPipelineLoopsPass().apply(CTX, module)
    CanonicalizeIOOrderPass().apply(CTX, module)
    module.verify()
    return module


def test_a_program_as_pypto_prints_it_reads_and_runs_through_the_passes() -> None:
    module, text = round_trip(PRINTED)
    ops = list(walk_ops(module))
    (row_max,) = [op for op in ops if isinstance(op, tile.RowMaxOp)]
    assert row_max.scratch is None  # a pl.tile.create tile is no value
    assert any(isinstance(op, tile.MaxsOp) for op in ops)
    constants = [op.value for op in ops if isinstance(op, arith.ConstantOp)]
    assert IntegerAttr(7, i32) in constants
    assert len([op for op in ops if isinstance(op, scf.IfOp)]) == 1
    assert "pl.tile.maximums(w, 0.5)" in text
    assert "tmp: pl.Tile[[16, 64], pl.FP32, pl.Mem.Vec] = pl.tile.create(" in text
    inputs = random_inputs(find_kernel(module, "kernel"), 3, {"n": 5})
    before = run_kernel(module, "kernel", inputs)
    after = run_kernel(_lowered(PRINTED), "kernel", inputs)
    assert compare_runs(before, after) == []
    assert int(before.results[0]) == 4 + 2 * 5  # 4 iterations of 16, 5 of 2


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            "for i, (a,) in pl.range(4, init_values=(n,)):\n"
            "    r: pl.Scalar[pl.INT32] = pl.yield_(a)",
            "the annotation pl.Scalar[pl.INT32] does not match the value's type "
            "pl.Scalar[pl.INDEX]",
        ),
        (
            "if n == 0:\n    r: pl.Scalar[pl.INDEX] = pl.yield_(n)\n"
            "else:\n    r: pl.Scalar[pl.FP32] = pl.yield_(n)",
            "the annotation pl.Scalar[pl.FP32] does not match the value's type "
            "pl.Scalar[pl.INDEX]",
        ),
        ("r = pl.const(n, pl.INT32)", "pl.const(...) takes a number literal"),
        ("r = pl.const(1, pl.UINT8)", "unknown dtype 'pl.UINT8'"),
        (
            "r = pl.const(300, pl.INT8)",
            "the literal 300 does not fit in pl.Scalar[pl.INT8]",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [16, 64])\n"
            "c = pl.tile.cast(t, target_type=pl.BF16, mode='floor')",
            "pl.tile.cast(...): only the default mode='round' is supported",
        ),
        (
            "s = pl.tile.create([16, 64], dtype=pl.FP32)\nt = pl.tile.exp(s)",
            "'s' is a pl.tile.create(...) tile, which has no value: it can only be "
            "the scratch tile of pl.tile.row_sum or row_max",
        ),
        (
            "pl.tile.create([16, 64], dtype=pl.FP32)",
            "pl.tile.create(...) must be assigned to a name",
        ),
        (
            "s: pl.Tile[[16, 64], pl.BF16] = pl.tile.create([16, 64], dtype=pl.FP32)",
            "the annotation pl.Tile[[16, 64], pl.BF16] does not match",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [16, 64])\n"
            "s = pl.tile.create([16, 32], dtype=pl.FP32)\nr = pl.tile.row_sum(t, s)",
            "pl.tile.row_sum: row op scratch tile must be rank 2 and at least 16x64 "
            "(the source), got 16x32",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [16, 64])\n"
            "s = pl.tile.create([16, 64], dtype=pl.BF16)\nr = pl.tile.row_sum(t, s)",
            "pl.tile.row_sum: row op scratch tile must have the source's element "
            "type f32, got bf16",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [16, 64])\n"
            "s = pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Mat)\n"
            "r = pl.tile.row_max(t, s)",
            "pl.tile.row_max: row op scratch tile must be in memory space vec, got mat",
        ),
        (
            "t = pl.tile.load(x, [0, 0], [16, 64])\n"
            "s = pl.tile.load(x, [0, 0], [8, 64])\nr = pl.tile.row_max(t, s)",
            "pl.tile.row_max: row op scratch tile must be rank 2 and at least 16x64 "
            "(the source), got 8x64",
        ),
    ],
)
def test_printed_forms_are_checked(body: str, message: str) -> None:
    assert message in error(program(body))


def test_a_scratch_value_is_kept_and_printed() -> None:
    body = (
        "t = pl.tile.load(x, [0, 0], [16, 64])\n"
        "s = pl.tile.full([32, 64], dtype=pl.FP32, value=0.0)\n"
        "r = pl.tile.row_sum(t, s)"
    )
    module, text = round_trip(program(body))
    (row_sum,) = [op for op in walk_ops(module) if isinstance(op, tile.RowSumOp)]
    assert row_sum.scratch is not None
    assert "pl.tile.row_sum(t, s)" in text
    assert "create" not in text


def test_the_scratch_printed_for_a_pipelined_row_op_keeps_its_membership() -> None:
    body = (
        "t = pl.tile.load(x, [0, 0], [16, 64])\n"
        'r = pl.tile.row_max(t, attrs={"pipeline_membership": "0:1"})'
    )
    _, text = round_trip(program(body))
    assert (
        "pl.tile.create([16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec, "
        'attrs={"pipeline_membership": "0:1"})'
    ) in text


def _op_names(module: ModuleOp) -> list[str]:
    """The ops of the kernel in order, its constants (placed differently) aside."""
    return [
        op.name
        for op in walk_ops(module)
        if not isinstance(op, arith.ConstantOp | ModuleOp)
    ]


def test_the_pypto_row_softmax_is_the_mlir_kernel(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The twins have the same ops, results and modelled schedule, before and after the passes."""
    python = ROOT / "examples" / "pypto" / "row_softmax.py"
    mlir = ROOT / "examples" / "row_softmax.mlir"
    imported = parse_pypto(CTX, python.read_text(), str(python))
    parsed = parse_module(CTX, mlir.read_text(), str(mlir))
    assert _op_names(imported) == _op_names(parsed)
    inputs = random_inputs(find_kernel(parsed, "row_softmax"), 0)
    assert (
        compare_runs(
            run_kernel(parsed, "row_softmax", inputs),
            run_kernel(imported, "row_softmax", inputs),
        )
        == []
    )
    reports: list[list[str]] = []
    for path in (python, mlir):
        assert pypto_report([str(path), "--passes", "lower-pipeline-loops"]) == 0
        out = capsys.readouterr().out
        # Everything but the line naming the loop's source position.
        reports.append([line for line in out.splitlines() if not line.startswith("@")])
    assert reports[0] == reports[1]
    assert any("bound (busiest engine)" in line for line in reports[0])


def test_export_of_the_row_softmax_twin_is_a_fixed_point() -> None:
    python = ROOT / "examples" / "pypto" / "row_softmax.py"
    _, text = round_trip(python.read_text())
    assert text.count("pl.tile.create(") == 2
    assert export(parse_pypto(CTX, text)) == text


@pytest.mark.parametrize("enabled", [True, False])
def test_the_target_pauses_the_collector_and_restores_it(enabled: bool):
    """As the passes: no full collection in the middle of a large print."""
    text = (Path(__file__).parents[2] / "examples" / "add_one.mlir").read_text()
    module = parse_module(CTX, text)
    seen: list[bool] = []

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            seen.append(gc.isenabled())
            return super().write(text)

    was_enabled = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        print_pypto(module, Stream())
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was_enabled else gc.disable)()
    assert seen and not any(seen)
