"""
Where `canonicalize-io-order{order=modelled search-budget=0}` spends its
time, against `order=category` in the same run, on the `bench` families
near 10,000 ops (`--ops`): preparing each searched body's model (costs,
dependences, the plan every simulation reads) and simulating the two orders
the pass must compare to be never slower than either, the input and
`category`. The simulations are the floor of any order checked on the model:
`1 + simulations / category` is what the pass would take over `category`
with a free model and a free search.

    python -m bench model-floor [--ops N] [--repeat R]

Prints a Markdown table of medians of `--repeat` runs.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from typing import Any
from unittest import mock

from bench import command_line
from bench.orders import PASS_TIME_OPS, lowered_families, time_pass
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.orders.body_model import BodyModel
from passes.schedule.timeline import Timeline
from pypto_dialect.context import pypto_context

PARTS = ("prepare", "simulate")


@contextmanager
def timed_model() -> Generator[dict[str, float]]:
    """Seconds spent in `BodyModel.prepare` (with the plan) and `BodyModel.simulate`."""
    spent: dict[str, float] = dict.fromkeys(PARTS, 0.0)
    prepare, simulate = BodyModel.prepare, BodyModel.simulate

    def timed_prepare(*args: Any, **kwargs: Any) -> BodyModel:
        start = time.perf_counter()
        model = prepare(*args, **kwargs)
        _ = model.loop.plan  # built by the first simulation, the same for every order
        spent["prepare"] += time.perf_counter() - start
        return model

    def timed_simulate(self: BodyModel, order: Sequence[int]) -> Timeline:
        start = time.perf_counter()
        timeline = simulate(self, order)
        spent["simulate"] += time.perf_counter() - start
        return timeline

    with (
        mock.patch.object(BodyModel, "prepare", staticmethod(timed_prepare)),
        mock.patch.object(BodyModel, "simulate", timed_simulate),
    ):
        yield spent


def measure(ops: int = PASS_TIME_OPS, repeat: int = 3) -> list[dict[str, Any]]:
    """Per family: the medians of both passes' seconds and of the model's parts."""
    ctx = pypto_context()
    category = CanonicalizeIOOrderPass(order="category")
    modelled = CanonicalizeIOOrderPass(order="modelled", search_budget=0)
    rows: list[dict[str, Any]] = []
    for name, parameter, lowered in lowered_families(ctx, ops):
        samples: dict[str, list[float]] = {
            part: [] for part in ("category", "modelled", *PARTS)
        }
        for _ in range(repeat):
            samples["category"].append(time_pass(ctx, lowered, category))
            with timed_model() as spent:
                samples["modelled"].append(time_pass(ctx, lowered, modelled))
            for part in PARTS:
                samples[part].append(spent[part])
        row = {part: statistics.median(values) for part, values in samples.items()}
        rows.append({"family": name, "parameter": parameter, **row})
    return rows


def markdown(rows: Sequence[dict[str, Any]]) -> str:
    lines = [
        "| family | category (ms) | modelled, budget 0 | of which: prepare | "
        "simulate input and category | floor: 1 + simulate |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        base = row["category"]
        lines.append(
            f"| {row['family']} | {base * 1e3:.1f} | {row['modelled'] / base:.1f}x | "
            f"{row['prepare'] / base:.1f}x | {row['simulate'] / base:.1f}x | "
            f"{1 + row['simulate'] / base:.1f}x |"
        )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line("model-floor", __doc__)
    parser.add_argument("--ops", type=int, default=PASS_TIME_OPS)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(markdown(measure(args.ops, args.repeat)), end="")
