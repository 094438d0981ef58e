"""
The picture of `python -m bench orders --plot FILE`, or of a saved run:

    python -m bench orders-plot bench/results/orders.json -o orders.svg

Per queue depth (columns): on top, each order's modelled time over its bound
(`max(ResMII, RecMII)`), the loops sorted (lower is better; 1 is the
bound); below, each reordering's time over the lowering's alone, sorted
(above 1, the loop got slower than with `lower-pipeline-loops` alone).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib import pyplot

from bench import command_line

matplotlib.use("Agg")  # files only: no display needed
# Text as text, and no random ids or dates: small, reproducible SVGs.
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "bench.orders"

REORDERED = ("category", "engine", "modelled")
TARGET_RATIO = 1.10
"""The target for the geomean of modelled time over bound."""
TARGET_TIME = 3.0
"""The target for the pass time against `order=category`."""
COLOURS = {
    "input": "tab:gray",
    "lowering": "tab:blue",
    "category": "tab:orange",
    "engine": "tab:green",
    "modelled": "tab:purple",
}


def _sorted_curve(values: Sequence[float]) -> tuple[list[float], list[float]]:
    ordered = sorted(values)
    return [i / max(1, len(ordered) - 1) for i in range(len(ordered))], ordered


def plot_orders(
    ratios: Mapping[int, Mapping[str, Sequence[float]]], loops: int, out: Path
) -> None:
    """`ratios[depth][order]`: time over bound per loop; written to `out`."""
    figure, axes = pyplot.subplots(
        2, len(ratios), figsize=(16, 9), sharey="row", squeeze=False
    )
    for column, (depth, by_order) in enumerate(ratios.items()):
        top, bottom = axes[0][column], axes[1][column]
        for order, values in by_order.items():
            top.plot(*_sorted_curve(values), label=order, color=COLOURS.get(order))
        lowering = by_order["lowering"]
        for order in REORDERED:
            relative = [a / b for a, b in zip(by_order[order], lowering, strict=True)]
            bottom.plot(*_sorted_curve(relative), label=order, color=COLOURS[order])
        bottom.axhline(1.0, color="black", linewidth=0.8)
        top.set_title(f"queue depth {depth}", fontsize=13)
        bottom.set_xlabel("fraction of loops (sorted)", fontsize=12)
        for axis in (top, bottom):
            axis.grid(True, alpha=0.3)
            axis.tick_params(labelsize=11)
    axes[0][0].set_ylabel("modelled time / max(ResMII, RecMII)", fontsize=12)
    axes[1][0].set_ylabel("time / time after the lowering alone", fontsize=12)
    axes[0][0].legend(fontsize=11)
    axes[1][0].legend(fontsize=11)
    title = f"{loops} loops: the orders of canonicalize-io-order on the schedule model"
    figure.suptitle(title, fontsize=14)  # pyright: ignore[reportUnknownMemberType]
    figure.tight_layout()
    figure.savefig(out, metadata={"Date": None} if out.suffix == ".svg" else None)  # pyright: ignore[reportUnknownMemberType]


def plot_budgets(results: Mapping[str, Any], path: Path) -> None:
    """
    `python -m bench budgets --plot FILE`: against the search budget, the
    corpus geomean of `modelled`'s time over bound, and its pass time over
    `category`'s per family (the targets dashed).
    """
    rows = results["budgets"]
    budgets = [row["budget"] for row in rows]
    places = list(range(len(budgets)))
    figure, (quality, cost) = pyplot.subplots(1, 2, figsize=(16, 6), dpi=110)
    quality.plot(
        places,
        [row["geomean_time_over_bound"] for row in rows],
        marker="o",
        color="tab:purple",
        label="order=modelled",
    )
    quality.axhline(TARGET_RATIO, color="tab:red", linestyle="--", label="target 1.10")
    quality.set_ylabel("geomean modelled time / bound (lower is better)")
    quality.set_title(f"Schedule quality, queue depth {results['depth']}")
    for family in rows[0]["pass_time_over_category"]:
        cost.plot(
            places,
            [row["pass_time_over_category"][family] for row in rows],
            marker="o",
            label=family,
        )
    cost.axhline(TARGET_TIME, color="tab:red", linestyle="--", label="target 3x")
    cost.set_yscale("log")
    cost.set_ylabel("pass time, modelled / category")
    cost.set_title(f"Pass time near {results['ops']:,} ops")
    for axes in (quality, cost):
        axes.set_xticks(places, [f"{b:,}" for b in budgets])
        axes.set_xlabel("search-budget (simulated body ops per block)")
        axes.grid(alpha=0.3)
    quality.legend(fontsize=11)
    cost.legend(fontsize=11, loc="center left", bbox_to_anchor=(1.01, 0.5))
    figure.tight_layout()
    figure.savefig(path, metadata={"Date": None} if path.suffix == ".svg" else None)  # pyright: ignore[reportUnknownMemberType]
    pyplot.close(figure)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line("orders-plot", __doc__)
    parser.add_argument(
        "results", type=Path, help="an orders.json of python -m bench orders"
    )
    parser.add_argument("-o", "--output", type=Path, nargs="+", required=True)
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text())
    ratios = {int(depth): by_order for depth, by_order in results["ratios"].items()}
    for path in args.output:
        plot_orders(ratios, results["loops"], path)
