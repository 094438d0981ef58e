"""
The picture of `python -m bench pypto-compare --plot FILE`, or of a saved run:

    python -m bench pypto-compare-plot run.json -o pypto_compare.svg

Static bounds on the left, dynamic on the right: per program, against the
number of ops the lowering makes, our time over PyPTO's for the lowering,
canonicalization, both passes, and the lowering less the collections in its
call (dashed). Below 1 we are faster; the lowering's target is dotted.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib import pyplot
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from bench import command_line
from bench.plot import save

matplotlib.use("Agg")  # files only: no display needed
# Text as text, and no random ids or dates: small, reproducible SVGs.
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "bench.pypto_compare"

NET = "lower less collection"
"""`bench.pypto_compare.NET` (not imported: that module loads both passes)."""
CURVES: tuple[tuple[str, str, str], ...] = (
    ("lower", "lower-pipeline-loops", "tab:blue"),
    (NET, "lower-pipeline-loops less its collections", "tab:blue"),
    ("canonicalize", "canonicalize-io-order", "tab:orange"),
    ("both", "both passes", "black"),
)
"""Each curve: its key in `ratios`, its label, its colour."""
LOWER_TARGET = 1.5
"""The target for the lowering's geomean."""
RATIO_TICKS = (0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5, 2.0, 3.0, 5.0)


def ratios(row: Mapping[str, Any]) -> dict[str, float]:
    """A program's ours-over-PyPTO ratios, by `CURVES` key (`NET` if measured)."""
    ours, theirs = row["ours"], row["theirs"]
    found = {name: ours[name] / theirs[name] for name in ("lower", "canonicalize")} | {
        "both": (ours["lower"] + ours["canonicalize"])
        / (theirs["lower"] + theirs["canonicalize"])
    }
    if NET in ours:
        found[NET] = ours[NET] / theirs["lower"]
    return found


def _ratio_text(value: float, _position: int | None) -> str:
    return f"{value:g}"


def _size_text(value: float, _position: int | None) -> str:
    return f"{value:,.0f}"


def plot_comparison(rows: Sequence[Mapping[str, Any]], out: Path) -> None:
    """`rows` as `python -m bench pypto-compare --json` writes them; the figure to `out`."""
    figure, axes = pyplot.subplots(1, 2, figsize=(12, 4.8), sharey=True)
    for axis, bounds in zip(axes, ("static", "dynamic"), strict=True):
        chosen = sorted(
            (row for row in rows if row["name"].startswith(bounds)),
            key=lambda row: row["ops_out"],
        )
        sizes = [row["ops_out"] for row in chosen]
        by_program = [ratios(row) for row in chosen]
        for key, label, colour in CURVES:
            if chosen and key in by_program[0]:
                axis.plot(
                    sizes,
                    [found[key] for found in by_program],
                    marker="o",
                    label=label,
                    color=colour,
                    linestyle="--" if key == NET else "-",
                )
        axis.axhline(1.0, color="tab:gray", linewidth=0.8, label="PyPTO's time")
        axis.axhline(
            LOWER_TARGET,
            color="tab:blue",
            linestyle=":",
            linewidth=0.8,
            label="the lowering's target (geomean)",
        )
        axis.set_xscale("log")
        axis.set_yscale("log")
        axis.yaxis.set_major_locator(FixedLocator(RATIO_TICKS))
        axis.yaxis.set_major_formatter(FuncFormatter(_ratio_text))
        axis.xaxis.set_major_formatter(FuncFormatter(_size_text))
        for ticks in (axis.xaxis, axis.yaxis):
            ticks.set_minor_formatter(NullFormatter())
        axis.set_title(f"{bounds} bounds")
        axis.set_xlabel("ops after lowering")
        axis.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("our time / PyPTO's C++ (log)")
    axes[1].legend(loc="upper right", fontsize="small")
    figure.suptitle("Both passes against PyPTO's C++ passes (below 1: faster)")  # pyright: ignore[reportUnknownMemberType]
    figure.tight_layout()
    save(figure, out)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "pypto-compare-plot", "Draw a saved `python -m bench pypto-compare --json` run."
    )
    parser.add_argument("run", type=Path, help="the JSON file of the run")
    parser.add_argument("-o", "--out", type=Path, required=True, help=".svg or .png")
    args = parser.parse_args(argv)
    plot_comparison(json.loads(args.run.read_text())["programs"], args.out)
