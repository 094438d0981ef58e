"""
`pypto-report --strategies`: each pipeline under every strategy of
`passes.schedule.defaults.STRATEGIES`, as JSON and as text, for
`examples/add_one.mlir` with a static and a dynamic trip count.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from passes.schedule.defaults import STRATEGIES
from passes.schedule.engines import default_costs_text
from passes.schedule.lowered import DYNAMIC_TRIP
from pypto_dialect.tools.report import main

ROOT = Path(__file__).parents[2]
ADD_ONE = ROOT / "examples" / "add_one.mlir"
NAMES = [name for name, _ in STRATEGIES]
DECLINED = (
    "declined by lower-pipeline-to-slots, gate stages: stages 32 is outside "
    "[2, 16], the slot counts of a region; replicated"
)


def dynamic_add_one(tmp_path: Path, stages: int = 4) -> str:
    """`add_one` with a dynamic trip count `%n` and `stages`."""
    text = (
        ADD_ONE.read_text()
        .replace(
            "%out: !pypto.tensor<1024xf32>)",
            "%out: !pypto.tensor<1024xf32>, %n: index)",
        )
        .replace("to %c8 step %c1 stages 4", f"to %n step %c1 stages {stages}")
    )
    path = tmp_path / f"dynamic{stages}.mlir"
    path.write_text(text)
    return str(path)


def strategies(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, *args: str
) -> tuple[str, dict[str, dict[str, Any]]]:
    """The text of `pypto-report --strategies args`, and per strategy its JSON outcome."""
    out_json = tmp_path / "report.json"
    code = main([*args, "--strategies", "--json", str(out_json)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in out + err
    (loop,) = json.loads(out_json.read_text())["strategies"]
    assert [o["strategy"] for o in loop["strategies"]] == NAMES
    return out, {o["strategy"]: o for o in loop["strategies"]}


def rows(out: str) -> dict[str, list[str]]:
    """The rows of the strategies table, by label (the cells after it)."""
    lines = out.split("strategies: ", 1)[1].splitlines()[1:]
    table: dict[str, list[str]] = {}
    for line in lines:
        if not line.strip():
            break
        label, *cells = line.strip().split("  ")
        table[label.strip()] = [cell.strip() for cell in cells if cell.strip()]
    return table


def test_static_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    out, outcomes = strategies(capsys, tmp_path, str(ADD_ONE))
    cascade, loop, slots = (outcomes[name] for name in ("cascade", "loop", "slots"))
    # 8 iterations, stages 4: two iterations of 4 copies, no remainder to run.
    assert cascade["ops"] == loop["ops"]
    assert cascade["figures"]["iterations_per_loop_iteration"] == 4
    # The loop, then 4 copies of the body's 6 ops, 3 index adds and the yield.
    assert cascade["ops"] == 1 + 4 * 6 + 3 + 1
    # Slots keep one body: the loop, the body's 6 ops, the slot index (a
    # constant and a remsi), the load's binding and the yield.
    assert slots["ops"] == 1 + 6 + 2 + 1 + 1
    assert slots["figures"]["iterations_per_loop_iteration"] == 1
    assert all(o["note"] == "" for o in outcomes.values())
    for outcome in outcomes.values():
        figures = outcome["figures"]
        assert figures["whole_loop"]["trip"] == 8
        assert figures["whole_loop"]["time"] > 0
        assert figures["peak_bytes"]["vec"] > 0
    # The four slots of the load are pinned; the replicated loop has a
    # buffer per tile and copy.
    assert (
        slots["figures"]["peak_bytes"]["vec"] < cascade["figures"]["peak_bytes"]["vec"]
    )
    table = rows(out)
    assert table["cycles per original iteration"] == NAMES
    assert table["ops emitted"] == [str(outcomes[n]["ops"]) for n in NAMES]
    assert table["modelled time"] == [
        f"{outcomes[n]['figures']['time_per_iteration']:.1f}" for n in NAMES
    ]
    assert table["whole loop (8 iterations)"] == [
        f"{outcomes[n]['figures']['whole_loop']['time']:.1f}" for n in NAMES
    ]
    assert table["peak vec bytes (of 196608)"] == [
        str(outcomes[n]["figures"]["peak_bytes"]["vec"]) for n in NAMES
    ]


def test_dynamic_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    out, outcomes = strategies(
        capsys, tmp_path, dynamic_add_one(tmp_path), "--trip", "10"
    )
    cascade, loop, slots = (outcomes[name] for name in ("cascade", "loop", "slots"))
    # The cascade's 6 remainder copies against the remainder loop's one.
    assert cascade["ops"] > loop["ops"] > slots["ops"]
    for outcome in outcomes.values():
        assert outcome["figures"]["whole_loop"]["trip"] == 10
    assert rows(out)["whole loop (10 iterations)"] == [
        f"{outcomes[n]['figures']['whole_loop']['time']:.1f}" for n in NAMES
    ]


def test_dynamic_without_trip(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    out, outcomes = strategies(capsys, tmp_path, dynamic_add_one(tmp_path))
    for outcome in outcomes.values():
        assert outcome["figures"]["whole_loop"]["time"] is None
    assert rows(out)["whole loop (cycles)"] == ["-", "-", "-"]
    assert f"note: whole loop: {DYNAMIC_TRIP}" in out


def test_declined_and_failed(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    # Stages 64: slots decline (gate `stages`, F outside [2, 16]) and are
    # replicated with the cascade, whose 64 + 2016 copies exceed max-copies.
    kernel = dynamic_add_one(tmp_path, stages=64)
    out, outcomes = strategies(capsys, tmp_path, kernel, "--trip", "100")
    cascade, loop, slots = (outcomes[name] for name in ("cascade", "loop", "slots"))
    assert cascade["figures"] is None and cascade["ops"] is None
    assert cascade["note"].startswith("failed: ")
    assert "max-copies" in cascade["note"]
    assert slots["note"].startswith("failed: ")
    assert loop["note"] == ""
    assert loop["figures"]["iterations_per_loop_iteration"] == 64
    assert rows(out)["ops emitted"] == ["-", f"{loop['ops']:,}", "-"]
    assert f"  cascade: {cascade['note']}" in out


def test_declined_slots_are_replicated(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    # Stages 32 over a static 64 iterations: no remainder, slots decline.
    text = (
        ADD_ONE.read_text()
        .replace("%c8 = arith.constant 8", "%c8 = arith.constant 64")
        .replace("stages 4", "stages 32")
        .replace("1024xf32", "8192xf32")
    )
    kernel = tmp_path / "stages32.mlir"
    kernel.write_text(text)
    out, outcomes = strategies(capsys, tmp_path, str(kernel))
    assert outcomes["slots"]["note"] == DECLINED
    assert outcomes["slots"]["ops"] == outcomes["cascade"]["ops"]
    assert outcomes["slots"]["figures"] == outcomes["cascade"]["figures"]
    assert f"  slots: {DECLINED}" in out


def test_slots_bounded_by_the_reports_cost_table(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    # A UB of 2000 bytes: the 4 slots of 512 bytes do not fit.
    table = json.loads(default_costs_text())
    table["capacities"]["vec"]["value"] = 2000
    costs = tmp_path / "small-ub.json"
    costs.write_text(json.dumps(table))
    _, outcomes = strategies(capsys, tmp_path, str(ADD_ONE), "--costs", str(costs))
    assert outcomes["slots"]["note"].startswith(
        "declined by lower-pipeline-to-slots, gate capacity: "
    )
    assert outcomes["slots"]["figures"] == outcomes["cascade"]["figures"]


def test_no_pipeline(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    kernel = tmp_path / "empty.mlir"
    kernel.write_text("func.func @f() {\n  func.return\n}\n")
    assert main([str(kernel), "--strategies"]) == 0
    out, _ = capsys.readouterr()
    assert out == "no pypto.pipeline loops\n"
