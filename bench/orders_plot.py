"""
The picture of `python -m bench.orders --plot FILE`: per queue depth, each
order's modelled time over its bound, the loops sorted (a lower curve is a
better order; 1 is the bound).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
from matplotlib import pyplot

matplotlib.use("Agg")  # files only: no display needed
# Text as text, and no random ids or dates: small, reproducible SVGs.
matplotlib.rcParams["svg.fonttype"] = "none"
matplotlib.rcParams["svg.hashsalt"] = "bench.orders"


def plot_orders(
    ratios: Mapping[int, Mapping[str, Sequence[float]]], loops: int, out: Path
) -> None:
    """`ratios[depth][order]`: time over bound per loop; written to `out`."""
    figure, axes = pyplot.subplots(
        1, len(ratios), figsize=(16, 5), sharey=True, squeeze=False
    )
    for axis, (depth, by_order) in zip(axes[0], ratios.items(), strict=True):
        for order, values in by_order.items():
            ordered = sorted(values)
            axis.plot(
                [i / max(1, len(ordered) - 1) for i in range(len(ordered))],
                ordered,
                label=order,
            )
        axis.set_title(f"queue depth {depth}", fontsize=13)
        axis.set_xlabel("fraction of loops (sorted)", fontsize=12)
        axis.set_yscale("log")
        axis.grid(True, alpha=0.3)
    axes[0][0].set_ylabel("modelled time / max(ResMII, RecMII)", fontsize=12)
    axes[0][0].legend(fontsize=11)
    title = f"{loops} loops: each order's modelled time over its bound"
    figure.suptitle(title, fontsize=14)  # pyright: ignore[reportUnknownMemberType]
    figure.tight_layout()
    figure.savefig(out, metadata={"Date": None})  # pyright: ignore[reportUnknownMemberType]
