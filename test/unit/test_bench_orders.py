"""
`python -m bench orders`, `python -m bench budgets` and `python -m bench model-floor` on a tiny corpus:
their tables, JSON (redrawn by `python -m bench orders-plot`), and the
never-slower property of `modelled` in their own figures.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import budgets, model_floor, orders, orders_plot
from bench.cases import FAMILIES


@pytest.mark.slow
def test_orders_benchmark_on_a_tiny_corpus(tmp_path: Path):
    plot = str(tmp_path / "orders.svg")
    orders.main(
        ["--kernels", "3", "--depths", "2", "--out", str(tmp_path), "--plot", plot]
    )
    results = json.loads((tmp_path / "orders.json").read_text())
    assert results["kernels"] == 3
    rows = results["depths"]["2"]
    assert set(rows) == set(orders.ORDERS)
    loops = results["loops"]
    assert loops >= 3  # the examples' three at least
    assert all(row["loops"] == loops for row in rows.values())
    assert rows["lowering"]["worse_than_lowering"] == 0
    assert rows["modelled"]["worse_than_lowering"] == 0
    assert rows["modelled"]["worse_than_category"] == 0
    assert [row["example"] for row in results["examples"]] == [
        "add_one.mlir",
        "matmul_k_loop.mlir",
        "row_softmax.mlir",
    ]
    table = (tmp_path / "orders.md").read_text()
    assert "| 2 | modelled |" in table
    # No order is below the floor, which is at least the bound.
    floor = results["floors"]["2"]
    assert 1.0 <= floor <= rows["modelled"]["geomean_time_over_bound"] + 1e-9
    assert "| 2 | no order below |" in table
    assert (tmp_path / "orders.svg").read_text().startswith("<?xml")
    orders_plot.main([str(tmp_path / "orders.json"), "-o", str(tmp_path / "again.png")])
    assert (tmp_path / "again.png").read_bytes().startswith(b"\x89PNG")


@pytest.mark.slow
def test_budgets_benchmark_on_a_tiny_corpus(tmp_path: Path):
    plot = str(tmp_path / "budgets.svg")
    budgets.main(
        [
            *("--budgets", "0", "200", "--kernels", "2", "--repeat", "1"),
            *("--ops", "300", "--out", str(tmp_path), "--plot", plot),
        ]
    )
    results = json.loads((tmp_path / "budgets.json").read_text())
    low, high = results["budgets"]
    assert (low["budget"], high["budget"]) == (0, 200)
    assert low["loops"] == high["loops"] >= 3  # the examples' three at least
    # A larger budget tries more orders after the same ones: never slower;
    # here faster (row_softmax's modulo order is past a budget of 0).
    assert high["geomean_time_over_bound"] < low["geomean_time_over_bound"]
    assert set(low["pass_time_over_category"]) == {f.name for f in FAMILIES}
    assert "| 200 |" in (tmp_path / "budgets.md").read_text()
    assert (tmp_path / "budgets.svg").read_text().startswith("<?xml")


def test_model_floor_splits_the_searched_bodies_time():
    measured = model_floor.measure(ops=150, repeat=1)
    rows = {row["family"]: row for row in measured}
    assert set(rows) == {family.name for family in FAMILIES}
    # Each stages body is searched: its model prepared and simulated, both
    # timed within the pass's own time (the patches reach the pass).
    stages = rows["stages-static"]
    assert 0 < stages["prepare"] + stages["simulate"] < stages["modelled"]
    assert stages["simulate"] > 0
    assert "| stages-static |" in model_floor.markdown(measured)


NEVER_RUN = """\
func.func @never(%x: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c1 to %c0 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  }
  func.return
}
"""
NESTED_DYNAMIC = (
    Path(__file__).parents[1] / "filecheck" / "report" / "not-comparable.mlir"
)


def test_orders_leave_out_loops_that_never_run_or_do_not_compare(tmp_path: Path):
    model, costs = orders.cost_table(2, tmp_path)
    tallies, floors, left_out = orders.measure_depth(
        [NESTED_DYNAMIC.read_text() + NEVER_RUN], model, costs
    )
    assert (left_out.never_run, left_out.not_comparable) == (1, 1)
    # Only the inner pipeline is tallied, in every order.
    assert {len(tally.ratios) for tally in tallies.values()} == {1}
    assert len(floors) == 1
