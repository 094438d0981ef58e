"""The engine model (`passes/schedule/engines.py`): engines, work, costs, the cost table."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from xdsl.ir import Operation
from xdsl.parser import Parser

from passes.analysis.footprint import padded_bytes, tile_bytes
from passes.schedule.engines import (
    Core,
    CostTableError,
    Engine,
    Unit,
    default_costs,
    default_costs_text,
    load_costs,
    parse_costs,
)
from passes.schedule.op_costs import (
    engine_of,
    issuing_core,
    lanes_of,
    op_cost,
    unit_of,
    work_of,
)
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.types import MemorySpace, TileType
from pypto_dialect.walks import walk_ops

OPS = """
func.func @ops(%x: !pypto.tensor<64x64xf32>, %m: !pypto.tile<32x64xbf16, mat>,
               %l: !pypto.tile<16x64xbf16, left>, %r: !pypto.tile<64x32xbf16, right>,
               %c: !pypto.tile<16x32xf32, acc>, %i: index) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
  pypto.tile.store %t, %x[%c0, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  pypto.tile.store %c, %x[%c0, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x64xf32>
  %e = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x64xbf16, mat> -> !pypto.tile<16x64xbf16, left>
  %v = pypto.tile.move %c : !pypto.tile<16x32xf32, acc> -> !pypto.tile<16x32xf32, vec>
  %w = pypto.tile.extract %t[%c0, %c0] : !pypto.tile<16x64xf32, vec> -> !pypto.tile<8x64xf32, vec>
  %p = pypto.tile.matmul %l, %r : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
  %q = pypto.tile.matmul_acc %c, %l, %r : !pypto.tile<16x32xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x32xbf16, right>
  %s = pypto.tile.row_sum %t : !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
  %z = pypto.tile.exp %t : !pypto.tile<16x64xf32, vec>
  %f = pypto.tile.read %t[%c0, %c0] : !pypto.tile<16x64xf32, vec>
  pypto.tile.tpush_to_aiv %t : !pypto.tile<16x64xf32, vec>
  %o = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
  %j = arith.addi %i, %c0 : index
  func.return
}
"""

EXPECTED = [
    # (op, engine, work): bytes, MACs for the cube
    ("arith.constant", Engine.SCALAR, 0),
    ("pypto.tile.load", Engine.MTE2, 16 * 64 * 4),
    ("pypto.tile.store", Engine.MTE3, 16 * 64 * 4),
    ("pypto.tile.store", Engine.FIXPIPE, 16 * 32 * 4),
    ("pypto.tile.extract", Engine.MTE1, 16 * 64 * 2),
    ("pypto.tile.move", Engine.FIXPIPE, 16 * 32 * 4),
    ("pypto.tile.extract", Engine.VECTOR, 8 * 64 * 4),
    ("pypto.tile.matmul", Engine.CUBE, 16 * 64 * 32),
    ("pypto.tile.matmul_acc", Engine.CUBE, 16 * 64 * 32),
    ("pypto.tile.row_sum", Engine.VECTOR, 16 * 64 * 4),
    ("pypto.tile.exp", Engine.VECTOR, 16 * 64 * 4),
    # `GetValue` runs on the scalar unit (docs/report.md, the model).
    ("pypto.tile.read", Engine.SCALAR, 4),
    ("pypto.tile.tpush_to_aiv", Engine.AIC_TO_AIV, 16 * 64 * 4),
    ("pypto.tile.tpop_from_aiv", Engine.AIV_TO_AIC, 16 * 64 * 4),
    ("arith.addi", Engine.SCALAR, 0),
    ("func.return", Engine.SCALAR, 0),
]


def body_ops(text: str) -> list[Operation]:
    module = parse_module(pypto_context(), text)
    return [op for op in walk_ops(module) if op.parent_op() is not module][1:]


def test_engines_and_work():
    ops = body_ops(OPS)
    assert [(op.name, engine_of(op), work_of(op)) for op in ops] == EXPECTED


def test_cost_is_latency_plus_work_over_bandwidth():
    model = default_costs()
    load = body_ops(OPS)[1]
    mte2 = model.engines[Engine.MTE2]
    cost = op_cost(load, model)
    assert cost.duration == mte2.latency + 16 * 64 * 4 / mte2.bandwidth
    # A load to `vec` runs on the vector core's MTE2.
    assert cost.busy == {Unit(Core.AIV, Engine.MTE2): cost.duration}


SPLIT = """
func.func @split(%t: !pypto.tile<16x64xf32, vec>) {
  pypto.tile.tpush_to_aiv %t {split = 1 : i64} : !pypto.tile<16x64xf32, vec>
  %o = pypto.tile.tpop_from_aiv {split = 2 : i64} : !pypto.tile<16x64xf32, vec>
  pypto.tile.tpush_to_aic %t : !pypto.tile<16x64xf32, vec>
  func.return
}
"""


@pytest.mark.parametrize("vector_cores", [1, 2])
def test_a_split_channel_moves_one_vector_cores_share(vector_cores: int):
    model = replace(default_costs(), vector_cores=vector_cores)
    push, pop, unsplit = body_ops(SPLIT)[:3]
    assert [lanes_of(op, model) for op in (push, pop, unsplit)] == [
        vector_cores,
        vector_cores,
        1,
    ]
    channel = model.engines[Engine.AIC_TO_AIV]
    tile = 16 * 64 * 4
    assert op_cost(push, model).duration == (
        channel.latency + tile / vector_cores / channel.bandwidth
    )
    assert op_cost(unsplit, model).duration == (
        model.engines[Engine.AIV_TO_AIC].cost(tile)
    )


def test_ops_with_regions_cost_their_nested_ops_in_sequence():
    text = """
func.func @nest(%x: !pypto.tensor<64xf32>, %b: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
  }
  scf.if %b {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  } else {
  }
  func.return
}
"""
    model = default_costs()
    module = parse_module(pypto_context(), text)
    loop, branch = (op for op in walk_ops(module) if op.name in ("scf.for", "scf.if"))
    load = model.engines[Engine.MTE2].cost(256)
    store = model.engines[Engine.MTE3].cost(256)
    assert op_cost(loop, model).duration == 4 * (load + store)
    mte2, mte3 = Unit(Core.AIV, Engine.MTE2), Unit(Core.AIV, Engine.MTE3)
    assert op_cost(loop, model).busy == {mte2: 4 * load, mte3: 4 * store}
    assert op_cost(branch, model).busy == {mte2: load}


def test_ops_with_regions_list_their_units_whatever_the_nested_order():
    # The same two ops in either order: the units of the `scf.if` come in
    # one order, so the flags around it (which compare units) and its event
    # pairs (its first unit) do not change when a pass reorders its block.
    template = """
func.func @nest(%x: !pypto.tensor<64xf32>, %b: i1) {{
  %c0 = arith.constant 0 : index
  scf.if %b {{
    {0}
    {1}
  }} else {{
  }}
  func.return
}}
"""
    load = "%t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>"
    other = "%u = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, mat>"
    model = default_costs()
    units: list[tuple[Unit, ...]] = []
    for first, second in ((load, other), (other, load)):
        module = parse_module(pypto_context(), template.format(first, second))
        branch = next(op for op in walk_ops(module) if op.name == "scf.if")
        units.append(op_cost(branch, model).units)
    assert units[0] == units[1]
    assert set(units[0]) == {Unit(Core.AIC, Engine.MTE2), Unit(Core.AIV, Engine.MTE2)}


def test_default_table_is_complete_and_documented():
    model = default_costs()
    assert set(model.engines) == set(Engine)
    assert set(model.capacities) == set(MemorySpace)
    assert model.capacities[MemorySpace.VEC] == 192 * 1024
    assert model.source == "default"
    assert "source" in model.description.lower()
    table = json.loads(default_costs_text())
    assert table["queue_depth"]["value"] == model.queue_depth


def default_table() -> dict[str, Any]:
    return json.loads(default_costs_text())


def edited(path: tuple[str, ...], value: object) -> str:
    table = default_table()
    *parents, last = path
    entry = table
    for key in parents:
        entry = entry[key]
    if value is None:
        del entry[last]
    else:
        entry[last] = value
    return json.dumps(table)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("engines", "MTE4"),
            {"latency": 1, "bandwidth": 1},
            "engines: unknown engine 'MTE4' (known: SCALAR, MTE2, MTE1, VECTOR, CUBE, FIXPIPE, MTE3, AIC_TO_AIV, AIV_TO_AIC)",
        ),
        (("engines", "CUBE"), None, "engines: missing engine 'CUBE'"),
        (
            ("engines", "MTE2", "bandwidth"),
            None,
            "engines.MTE2: missing field 'bandwidth'",
        ),
        (
            ("engines", "MTE2", "speed"),
            3,
            "engines.MTE2: unknown field 'speed' (known: latency, bandwidth)",
        ),
        (
            ("engines", "MTE2", "latency"),
            -3,
            "engines.MTE2.latency: must be a non-negative number, got -3",
        ),
        (
            ("engines", "MTE2", "bandwidth"),
            0,
            "engines.MTE2.bandwidth: must be at least 2^-20, got 0.0",
        ),
        (
            ("engines", "MTE2", "bandwidth"),
            5e-324,
            "engines.MTE2.bandwidth: must be at least 2^-20, got 5e-324",
        ),
        (
            ("engines", "VECTOR", "bandwidth"),
            {"value": 1e-300},
            "engines.VECTOR.bandwidth: must be at least 2^-20, got 1e-300",
        ),
        (("queue_depth",), 65, "queue_depth: must be at most 64, got 65"),
        (("events_per_pair",), 65, "events_per_pair: must be at most 64, got 65"),
        (
            ("events_per_pair",),
            2**53,
            "events_per_pair: must be at most 64, got 9007199254740992",
        ),
        (
            ("queue_depth",),
            2**53,
            "queue_depth: must be at most 64, got 9007199254740992",
        ),
        (
            ("engines", "VECTOR", "latency"),
            "8",
            'engines.VECTOR.latency: must be a non-negative number, got "8"',
        ),
        (
            ("engines", "VECTOR", "latency"),
            True,
            "engines.VECTOR.latency: must be a non-negative number, got true",
        ),
        (("engines", "VECTOR"), [8, 256], "engines.VECTOR: must be a JSON object"),
        (
            ("capacities", "vec"),
            1.5,
            "capacities.vec: must be a non-negative integer, got 1.5",
        ),
        (("capacities", "bias"), None, "capacities: missing field 'bias'"),
        (
            ("capacities", "l1"),
            1,
            "capacities: unknown field 'l1' (known: vec, mat, left, right, acc, bias)",
        ),
        (("queue_depth",), -1, "queue_depth: must be a non-negative integer, got -1"),
        (("sync_latency",), None, "the cost table: missing field 'sync_latency'"),
        (("description",), 3, "description: must be a string"),
    ],
)
def test_bad_tables_name_the_field(path: tuple[str, ...], value: object, message: str):
    with pytest.raises(CostTableError) as error:
        parse_costs(edited(path, value), "costs.json")
    assert error.value.located("costs.json") == f"costs.json: error: {message}"


def test_invalid_json_is_located():
    with pytest.raises(CostTableError) as error:
        parse_costs('{\n  "queue_depth": 2,\n  oops\n}', "costs.json")
    assert error.value.located("costs.json") == (
        "costs.json:3:3: error: invalid JSON: Expecting property name enclosed in double quotes"
    )


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"queue_depth": ' + "9" * 5000 + "}", "a number with too many digits"),
        ("[" * 100_000 + "]" * 100_000, "lists or objects nested too deeply"),
    ],
)
def test_json_past_pythons_limits_is_invalid(text: str, message: str):
    with pytest.raises(CostTableError) as error:
        parse_costs(text, "costs.json")
    assert error.value.message == f"invalid JSON: {message}"


def test_tables_must_be_objects():
    with pytest.raises(CostTableError, match="the cost table: must be a JSON object"):
        parse_costs("[]", "costs.json")


def test_load_costs(tmp_path: Path):
    path = tmp_path / "costs.json"
    path.write_text(edited(("queue_depth",), 5))
    model = load_costs(str(path))
    assert model.queue_depth == 5
    assert model.source == str(path)
    with pytest.raises(
        CostTableError, match="cannot read the cost table: No such file"
    ):
        load_costs(str(tmp_path / "missing.json"))
    path.write_bytes(b"\xff")
    with pytest.raises(CostTableError, match="not UTF-8 text"):
        load_costs(str(path))


# --------------------------------------------------------------------------- #
# Padding, fractals, cores
# --------------------------------------------------------------------------- #


def tile(text: str) -> TileType:
    parsed = Parser(pypto_context(), text).parse_attribute()
    assert isinstance(parsed, TileType)
    return parsed


@pytest.mark.parametrize(
    ("text", "raw", "padded"),
    [
        # vec: each row rounded up to 32 bytes.
        ("!pypto.tile<16x1xf32, vec>", 64, 16 * 32),
        ("!pypto.tile<128xf32, vec>", 512, 512),
        ("!pypto.tile<3x5xf16, vec>", 30, 3 * 32),
        # mat and left: 16-row fractals of 32-byte rows.
        ("!pypto.tile<17x16xbf16, mat>", 544, 32 * 32),
        ("!pypto.tile<16x20xbf16, left>", 640, 16 * 64),
        # right (K x N): K in 32-byte blocks of elements, N in 16 columns.
        ("!pypto.tile<20x17xbf16, right>", 680, 64 * 32),
        # acc: 16 x 16 elements.
        ("!pypto.tile<17x17xf32, acc>", 1156, 32 * 32 * 4),
        # bias: 64 bytes.
        ("!pypto.tile<1x10xf32, bias>", 40, 64),
    ],
)
def test_tiles_are_padded_as_their_memory_lays_them_out(
    text: str, raw: int, padded: int
):
    assert (tile_bytes(tile(text)), padded_bytes(tile(text))) == (raw, padded)


def test_cube_work_counts_fractal_steps():
    # 17 x 20 by 20 x 33 in bf16: 2 x 2 x 3 fractal steps (16 x 16 x 16),
    # 4096 MACs each; in f32 a fractal holds 8 of K, so K = 20 takes 3.
    text = """
func.func @f(%l: !pypto.tile<17x20xbf16, left>, %r: !pypto.tile<20x33xbf16, right>,
             %lf: !pypto.tile<17x20xf32, left>, %rf: !pypto.tile<20x33xf32, right>) {
  %p = pypto.tile.matmul %l, %r : !pypto.tile<17x20xbf16, left>, !pypto.tile<20x33xbf16, right> -> !pypto.tile<17x33xf32, acc>
  %q = pypto.tile.matmul %lf, %rf : !pypto.tile<17x20xf32, left>, !pypto.tile<20x33xf32, right> -> !pypto.tile<17x33xf32, acc>
  func.return
}
"""
    bf16, f32 = body_ops(text)[:2]
    assert work_of(bf16) == 2 * 2 * 3 * 4096
    assert work_of(f32) == 2 * 3 * 3 * 4096


def test_units_and_issuing_cores():
    model = default_costs()
    ops = {op.name + str(i): op for i, op in enumerate(body_ops(OPS))}
    by_name = {
        name: (unit_of(op, model), issuing_core(op, model)) for name, op in ops.items()
    }
    assert by_name["pypto.tile.load1"] == (Unit(Core.AIV, Engine.MTE2), Core.AIV)
    assert by_name["pypto.tile.extract4"] == (Unit(Core.AIC, Engine.MTE1), Core.AIC)
    assert by_name["pypto.tile.read11"] == (Unit(Core.AIV, Engine.SCALAR), Core.AIV)
    # A channel is in neither core; a push runs on the sender, a pop on the receiver.
    assert by_name["pypto.tile.tpush_to_aiv12"] == (
        Unit(None, Engine.AIC_TO_AIV),
        Core.AIC,
    )
    assert by_name["pypto.tile.tpop_from_aiv13"] == (
        Unit(None, Engine.AIV_TO_AIC),
        Core.AIC,
    )
    # A scalar op without tiles has no core: each core runs its own copy.
    assert by_name["arith.addi14"] == (Unit(None, Engine.SCALAR), None)


# --------------------------------------------------------------------------- #
# Sources, and the schema of the table
# --------------------------------------------------------------------------- #


def figure_paths(table: dict[str, Any]) -> list[str]:
    paths = ["queue_depth", "sync_latency", "events_per_pair", "vector_cores"]
    paths += [
        f"engines.{e}.{f}" for e in table["engines"] for f in ("latency", "bandwidth")
    ]
    paths += [f"capacities.{s}" for s in table["capacities"]]
    return paths + [f"cores.{c}" for c in table["cores"]]


def test_every_bundled_figure_has_a_source():
    model = default_costs()
    paths = figure_paths(default_table())
    assert sorted(model.sources) == sorted(paths)
    for path in paths:
        source = model.sources[path]
        assert source.startswith(("https://", "hicann/", "assumed")), path


def test_a_table_of_plain_numbers_still_reads():
    # Today's schema before sources: numbers, no events_per_pair nor cores.
    table = default_table()
    plain = {
        "queue_depth": 3,
        "sync_latency": 0,
        "engines": {
            name: {field: entry[field]["value"] for field in entry}
            for name, entry in table["engines"].items()
        },
        "capacities": {
            name: entry["value"] for name, entry in table["capacities"].items()
        },
    }
    model = parse_costs(json.dumps(plain), "old.json")
    assert model.queue_depth == 3
    assert model.events_per_pair == default_costs().events_per_pair
    assert model.vector_cores == default_costs().vector_cores == 2
    assert model.cores == default_costs().cores
    assert model.sources == {}


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            ("queue_depth",),
            {"value": 2, "cite": "x"},
            "queue_depth: unknown field 'cite' (known: value, source)",
        ),
        (("queue_depth",), {"source": "x"}, "queue_depth: missing field 'value'"),
        (
            ("queue_depth",),
            {"value": 2, "source": 3},
            "queue_depth.source: must be a string",
        ),
        (
            ("engines", "MTE2", "latency"),
            1e300,
            "engines.MTE2.latency: must be at most 2^53, got 1e+300",
        ),
        (("events_per_pair",), 0, "events_per_pair: must be positive, got 0"),
        (("vector_cores",), 0, "vector_cores: must be 1 or 2, got 0"),
        (("vector_cores",), 3, "vector_cores: must be 1 or 2, got 3"),
        (
            ("vector_cores",),
            1.5,
            "vector_cores: must be a non-negative integer, got 1.5",
        ),
        (
            ("cores", "AIX"),
            {"engines": [], "spaces": []},
            "cores: unknown core 'AIX' (known: AIC, AIV)",
        ),
        (
            ("cores", "AIC", "engines"),
            ["CUBE", "MTE9"],
            'cores.AIC.engines: unknown name "MTE9" (known: SCALAR, MTE2, MTE1, VECTOR, CUBE, FIXPIPE, MTE3, AIC_TO_AIV, AIV_TO_AIC)',
        ),
        (
            ("cores", "AIC", "engines"),
            ["AIC_TO_AIV"],
            "cores.AIC.engines: AIC_TO_AIV is a channel between the cores",
        ),
        (
            ("cores", "AIV", "spaces"),
            ["vec", "mat"],
            "cores: the space mat must be in exactly one core",
        ),
        (("cores", "AIC", "engines"), ["SCALAR"], "cores: no core has the engine MTE1"),
        (
            ("cores", "AIV", "spaces"),
            "vec",
            "cores.AIV.spaces: must be a JSON list of names",
        ),
    ],
)
def test_bad_figures_and_cores_name_the_field(
    path: tuple[str, ...], value: object, message: str
):
    with pytest.raises(CostTableError) as error:
        parse_costs(edited(path, value), "costs.json")
    assert error.value.message == message
