"""
The hand-written syntax of the pypto ops and types (`pypto_dialect.syntax`,
the type cache): byte-identical round trips through the custom and the
generic form, attribute dictionaries, located parse errors; and a smoke run
of `bench.dialect_io`.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import parse, print_ir
from xdsl.dialects.builtin import f32
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

from pypto_dialect.attributes import MembershipAttr
from pypto_dialect.context import pypto_context
from pypto_dialect.dialects import get_all_dialects
from pypto_dialect.types import MemorySpace, TensorType, TileType

ROOT = Path(__file__).parents[2]

TENSOR = "!pypto.tensor<128x64xf32>"
T64 = "!pypto.tile<64x64xf32, vec>"
ROW = "!pypto.tile<64x1xf32, vec>"
LEFT = "!pypto.tile<16x64xbf16, left>"
RIGHT = "!pypto.tile<64x256xbf16, right>"
ACC = "!pypto.tile<16x256xf32, acc>"
MAT = "!pypto.tile<128x256xbf16, mat>"
SIGNATURE = (
    f"%x: {TENSOR}, %t: {T64}, %u: {T64}, %r: {ROW}, %a: {LEFT}, %b: {RIGHT}, "
    f"%c: {ACC}, %m: {MAT}, %s: f32, %i: index, %j: index"
)

OPS = [
    f"%y = pypto.tile.load %x[%i, %j] : {TENSOR} -> {T64}",
    f"pypto.tile.store %t, %x[%i, %j] : {T64}, {TENSOR}",
    f"%y = pypto.tile.read %t[%i, %j] : {T64}",
    f"%y = pypto.tile.write %s, %t[%i, %j] : {T64}",
    f"%y = pypto.tile.extract %m[%i, %j] : {MAT} -> {RIGHT}",
    f"%y = pypto.tile.move %t : {T64} -> !pypto.tile<64x64xf32, mat>",
    f"%y = pypto.tile.matmul %a, %b : {LEFT}, {RIGHT} -> {ACC}",
    f"%y = pypto.tile.matmul_acc %c, %a, %b : {ACC}, {LEFT}, {RIGHT}",
    f"%y = pypto.tile.max %t, %u : {T64}",
    f"%y = pypto.tile.divs %t, %s : {T64}, f32",
    f"%y = pypto.tile.rsqrt %t : {T64}",
    f"%y = pypto.tile.cast %t : {T64} -> !pypto.tile<64x64xbf16, vec>",
    f"%y = pypto.tile.row_max %t : {T64} -> {ROW}",
    f"%y = pypto.tile.row_expand_div %t, %r : {T64}, {ROW}",
    f"%y = pypto.tile.full %s : f32 -> {T64}",
    f"pypto.tile.tpush_to_aic %t : {T64}",
    f"%y = pypto.tile.tpop_from_aiv : {T64}",
    "pypto.pipeline %k = %i to %j step %i stages 3 {\n  }",
    "pypto.pipeline %k = %i to %j step %i stages 2 overlap_stores = false "
    "double_buffer_acc = true {\n  }",
    f"%y, %y_1 = pypto.pipeline %k = %i to %j step %i stages 2 iter_args(%v = %t, "
    f"%w = %i) -> ({T64}, index) {{\n    pypto.yield %v, %w : {T64}, index\n  }}",
]

ATTRIBUTES = (
    " {pypto.pipeline_membership = #pypto.membership<0:1, 2:3>, "
    'note = "x", space = #pypto.memory_space<acc>}'
)


def with_attributes(op: str) -> str:
    """`op` with `ATTRIBUTES` where its syntax puts the attribute dictionary."""
    if "pypto.pipeline" in op:
        return op + ATTRIBUTES
    head, types = op.rsplit(" : ", 1)
    return f"{head}{ATTRIBUTES} : {types}"


def function(*ops: str) -> str:
    body = "".join(f"    {op}\n" for op in ops)
    return f"builtin.module {{\n  func.func @f({SIGNATURE}) {{\n{body}    func.return\n  }}\n}}"


def reindented(text: str) -> str:
    """`text` as the printer indents it inside `function`."""
    return text.replace("\n  }", "\n    }").replace(
        "\n    pypto.yield", "\n      pypto.yield"
    )


@pytest.mark.parametrize("attributes", [False, True], ids=["plain", "attributes"])
@pytest.mark.parametrize(
    "op", OPS, ids=[next(w for w in op.split() if w.startswith("pypto.")) for op in OPS]
)
def test_round_trips_byte_for_byte(op: str, attributes: bool):
    text = function(reindented(with_attributes(op) if attributes else op))
    module = parse(text)
    assert print_ir(module) == text
    assert print_ir(parse(print_ir(module, generic=True))) == text
    generic = print_ir(module, generic=True)
    assert print_ir(parse(generic), generic=True) == generic


def test_repeated_types_parse_to_equal_types_and_print_back():
    ops = [f"%y{k} = pypto.tile.exp %t : {T64}" for k in range(3)]
    module = parse(function(*ops))
    results = [op.results[0].type for op in module.walk() if op.results]
    assert results == [TileType([64, 64], f32, MemorySpace.VEC)] * 3
    assert print_ir(module) == function(*ops)


def test_types_built_in_python_print_like_parsed_ones():
    tile = TileType([16, 1], f32, MemorySpace.ACC)
    tensor = TensorType([8, 4, 2], f32)
    assert str(tile) == "!pypto.tile<16x1xf32, acc>"
    assert str(tensor) == "!pypto.tensor<8x4x2xf32>"
    assert Parser(pypto_context(), str(tile)).parse_type() == tile


@pytest.mark.parametrize(
    "text", ["<0:1,2:3>", "< 0 : 1 , 2 : 3 >", "<0x0:1, 2:0x3>", "<000:1, 2:3>"]
)
def test_membership_in_any_spacing_parses_and_prints_canonically(text: str):
    parsed = Parser(pypto_context(), f"#pypto.membership{text}").parse_attribute()
    assert parsed == MembershipAttr([(0, 1), (2, 3)])
    assert str(parsed) == "#pypto.membership<0:1, 2:3>"


@pytest.mark.parametrize(
    ("op", "message"),
    [
        (
            f"%y = pypto.tile.load %x[%i] : {TENSOR} -> f32",
            "f32 should be of base attribute pypto.tile",
        ),
        (
            f"%y = pypto.tile.load %x[%i] : {T64} -> {T64}",
            "should be of base attribute pypto.tensor",
        ),
        ("%y = pypto.tile.add %s, %s : f32", "should be of base attribute pypto.tile"),
        ("pypto.tile.tpush_to_aiv %s : f32", "should be of base attribute pypto.tile"),
        (f"%y = pypto.tile.load %x : {TENSOR} -> {T64}", "Expected '['"),
        (f"%y = pypto.tile.add %t : {T64}", "Expected ','"),
        (f"%y = pypto.tile.adds %t, %s : {T64}, i32", "operand is used with type i32"),
        (f"%y = pypto.tile.read %t[%i] : {TENSOR}", "expected a !pypto.tile type"),
        (
            f"%y = pypto.tile.exp %t : {T64[:-1]} -> {T64}",
            "'>' expected",
        ),
        (
            "%y = pypto.pipeline %k = %i to %j step %i stages 2 iter_args(%v = %t) "
            f"-> ({T64}) {{\n pypto.yield %v, %v : {T64}\n }}",
            "expected 1 operand types but had 2",
        ),
    ],
)
def test_bad_syntax_is_a_located_parse_error(op: str, message: str):
    with pytest.raises(ParseError, match=message.replace("[", r"\[")) as error:
        parse(function(op))
    assert "^" in str(error.value)


def _run(*arguments: str) -> str:
    return subprocess.run(
        [sys.executable, *arguments],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.mark.slow
def test_benchmark_smoke_covers_every_op_of_the_dialect():
    script = (
        "import dataclasses, json\n"
        "from bench.dialect_io import measure_dialect_io\n"
        "rows = measure_dialect_io(ops_per_kind=2, repeat=1)\n"
        "print(json.dumps([dataclasses.asdict(row) for row in rows]))\n"
    )
    rows: list[dict[str, Any]] = json.loads(_run("-c", script))
    dialect_ops = {
        op.name
        for factory in get_all_dialects().values()
        for op in factory().operations
    }
    measured = {op for row in rows for op in row["ops"]}
    assert dialect_ops <= measured
    assert rows[0]["kind"] == "arith.addi"
    assert {row["group"] for row in rows} == {
        "baseline",
        "op",
        "type",
        "attribute",
        "upstream",
    }
    for row in rows:
        assert set(row) == {
            "kind",
            "group",
            "ops",
            "over",
            "parse_per_op",
            "print_per_op",
            "parse_ratio",
            "print_ratio",
        }


@pytest.mark.slow
def test_benchmark_command_prints_a_table():
    output = _run("-m", "bench", "dialect-io", "--ops", "2", "--repeat", "1")
    lines = [line for line in output.splitlines() if line.startswith("| `")]
    assert lines[0].startswith("| `arith.addi` | baseline |")
    assert any(line.startswith("| `pypto.tile.load` | op |") for line in lines)
