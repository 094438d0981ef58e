"""
The benchmark as a picture: per family, the time per output op of both
passes and of reading and writing the output, against the module's size.

    python -m bench plot bench/results/results.json -o docs/images/benchmark.svg

A flat line is linear; the gap between two lines is their ratio (the y axis
is logarithmic). With a `--baseline` run, the passes of the baseline checkout
are drawn dashed in the same colours.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import matplotlib
from matplotlib import pyplot
from matplotlib.figure import Figure
from matplotlib.ticker import NullFormatter

from bench import command_line

matplotlib.use("Agg")  # files only: no display needed
# Text as text, and no random ids or dates: small, reproducible SVGs.
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "bench.plot"

CURVES: tuple[tuple[str, str, str], ...] = (
    ("parse_output", "parse of the output", "tab:gray"),
    ("print", "print of the output", "tab:olive"),
    ("lower", "lower-pipeline-loops", "tab:blue"),
    ("canonicalize", "canonicalize-io-order", "tab:orange"),
)
"""The phases drawn: median, its label, its colour."""
BASELINES = {"lower": "lower_baseline", "canonicalize": "canonicalize_baseline"}
"""The phases of the baseline checkout drawn dashed beside ours."""


def per_op_series(
    cases: Sequence[Mapping[str, Any]], family: str, phase: str
) -> tuple[list[int], list[float]]:
    """Sizes (ops out) and microseconds per output op of `phase` in `family`."""
    points = sorted(
        (case["ops_out"], case["medians"][phase] * 1e6 / case["ops_out"])
        for case in cases
        if case["family"] == family and phase in case["medians"]
    )
    return [size for size, _ in points], [per_op for _, per_op in points]


def plot(report: Mapping[str, Any], output: Path) -> None:
    """Draw `report` (the content of `results.json`) to `output` (any format matplotlib writes)."""
    families = list(report["families"])
    cases: Sequence[Mapping[str, Any]] = report["cases"]
    columns = min(4, len(families))
    rows = math.ceil(len(families) / columns)
    figure, axes = pyplot.subplots(
        rows, columns, figsize=(3.6 * columns, 3.0 * rows), squeeze=False
    )
    for axis, family in zip(axes.flat, families, strict=False):
        for phase, label, colour in CURVES:
            sizes, per_op = per_op_series(cases, family, phase)
            axis.plot(sizes, per_op, marker="o", color=colour, label=label)
            if (baseline := BASELINES.get(phase)) is not None:
                sizes, per_op = per_op_series(cases, family, baseline)
                axis.plot(
                    sizes,
                    per_op,
                    marker="x",
                    linestyle="--",
                    color=colour,
                    label=f"{label}, baseline",
                )
        axis.set_title(family)
        axis.set_xscale("log")
        axis.set_yscale("log")
        # Plain numbers at the measured sizes: log minor labels overlap.
        sizes = sorted({size for line in axis.get_lines() for size in line.get_xdata()})  # pyright: ignore[reportUnknownVariableType, reportUnknownMemberType, reportUnknownArgumentType]
        axis.set_xticks(sizes, [f"{size:,.0f}" for size in sizes])  # pyright: ignore[reportUnknownMemberType]
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.set_xlabel("ops after lowering")
        axis.set_ylabel("us per op")
        axis.grid(visible=True, which="both", linewidth=0.3)
    for axis in axes.flat[len(families) :]:
        axis.set_visible(False)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    figure.legend(handles, labels, loc="lower center", ncol=3)  # pyright: ignore[reportUnknownMemberType]
    figure.tight_layout(rect=(0, 0.1, 1, 1))
    save(figure, output)


def save(figure: Figure, output: Path) -> None:
    """Write `figure` to `output` without a date (reproducible files) and close it."""
    metadata = {"Date": None} if output.suffix in {".svg", ".pdf"} else None
    figure.savefig(output, metadata=metadata)  # pyright: ignore[reportUnknownMemberType]
    pyplot.close(figure)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "plot", "Draw the time per op of each family of a benchmark run."
    )
    parser.add_argument(
        "results", type=Path, help="a results.json of python -m bench suite"
    )
    parser.add_argument(
        "-o", "--output", type=Path, required=True, help="the picture (.svg, .png)"
    )
    args = parser.parse_args(argv)
    plot(json.loads(args.results.read_text()), args.output)
