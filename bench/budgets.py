"""
What `canonicalize-io-order{order=modelled search-budget=B}` gives for its
time: per budget, the geometric mean of modelled time over bound on the
corpus of `bench.orders` at one queue depth, and the pass's time against
`order=category` on the `bench` families near 10,000 ops (`--ops`).

    python -m bench budgets [--budgets B ...] [--kernels N] [--depth D]
                            [--repeat R] [--ops N] [--out DIR] [--plot FILE ...]

Writes `budgets.json` and `budgets.md` into `--out` (default
`bench/results/`); `--plot` draws both against the budget (`.svg` or
`.png`). The pass times are medians of `--repeat` runs, as ratios against
`category` measured in the same run.
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench import command_line
from bench.orders import (
    KERNELS,
    PASS_TIME_OPS,
    SEED,
    corpus,
    cost_table,
    geomean,
    pass_times,
)
from bench.orders_plot import plot_budgets
from passes.canonicalize_io_order import SEARCH_BUDGET
from passes.schedule.engines import CostModel
from passes.schedule.report import pass_pipeline, run_report
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context

BUDGETS = (0, 1_000, 5_000, 20_000, SEARCH_BUDGET)


def time_over_bound(
    texts: Sequence[str], model: CostModel, costs: Path, budget: int
) -> list[float]:
    """Per pipeline loop of `texts` after both passes (`modelled`, `budget`): time over bound."""
    ctx = pypto_context()
    spec = pass_pipeline(
        "lower-pipeline-loops,canonicalize-io-order{order=modelled "
        f'search-budget={budget} costs="{costs}"}}'
    )
    ratios: list[float] = []
    for text in texts:
        for report in run_report(ctx, parse_module(ctx, text), model, spec):
            if (after := report.after) is not None:
                ratios.append(after.time / after.bound if after.bound else 1.0)
    return ratios


def measure(
    budgets: Sequence[int],
    kernels: int,
    depth: int,
    repeat: int,
    ops: int = PASS_TIME_OPS,
) -> dict[str, Any]:
    """
    Per budget, the corpus geomean and the pass time over `category`'s per
    family near `ops` ops.
    """
    texts = corpus(kernels, SEED)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as directory:
        model, costs = cost_table(depth, Path(directory))
        for budget in budgets:
            ratios = time_over_bound(texts, model, costs, budget)
            times = pass_times(repeat, ("category", "modelled"), budget, ops)
            rows.append(
                {
                    "budget": budget,
                    "loops": len(ratios),
                    "geomean_time_over_bound": geomean(ratios),
                    "pass_time_over_category": {
                        row["family"]: row["modelled"] / row["category"]
                        for row in times
                    },
                }
            )
            print(f"budget {budget}: done", file=sys.stderr)
    return {
        "kernels": kernels,
        "seed": SEED,
        "depth": depth,
        "ops": ops,
        "budgets": rows,
    }


def markdown(results: dict[str, Any]) -> str:
    rows = results["budgets"]
    families = list(rows[0]["pass_time_over_category"])
    lines = [
        f"Corpus: {results['kernels']} generated kernels (seed {results['seed']}) "
        f"and the examples, {rows[0]['loops']} loops, queue depth {results['depth']}; "
        f"pass time of `modelled` over `category` near {results['ops']:,} ops.",
        "",
        "| search-budget | geomean time / bound | " + " | ".join(families) + " |",
        "|---|---|" + "---|" * len(families),
    ]
    for row in rows:
        ratios = row["pass_time_over_category"]
        lines.append(
            f"| {row['budget']} | {row['geomean_time_over_bound']:.4f} | "
            + " | ".join(f"{ratios[family]:.1f}" for family in families)
            + " |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line("budgets", __doc__)
    parser.add_argument("--budgets", type=int, nargs="+", default=list(BUDGETS))
    parser.add_argument("--kernels", type=int, default=KERNELS)
    parser.add_argument("--depth", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ops", type=int, default=PASS_TIME_OPS)
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--plot", type=Path, nargs="*", default=[])
    args = parser.parse_args(argv)
    results = measure(args.budgets, args.kernels, args.depth, args.repeat, args.ops)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "budgets.json").write_text(json.dumps(results, indent=2) + "\n")
    text = markdown(results)
    (args.out / "budgets.md").write_text(text)
    for path in args.plot:
        plot_budgets(results, path)
    print(text)
