"""
The orders of `canonicalize-io-order` on the schedule model: a fixed corpus
of generated kernels plus the examples, at several queue depths.

    python -m bench orders [--kernels N] [--seed S] [--depths D ...]
                           [--out DIR] [--plot FILE ...] [--pass-time]

For each queue depth (the bundled cost table with `queue_depth` changed)
and each order (`input`: the written loop; `lowering`: after
`lower-pipeline-loops` alone; `category`, `engine`, `modelled`: after it and
`canonicalize-io-order{order=...}` with that table), over every pipeline
loop with a loop after the passes (but those that never run, a static trip
count of 0, which no order touches, and those the report cannot compare
before and after, `LoopReport.comparable`: both counted): the geometric mean of modelled time over
bound (`max(ResMII, RecMII)`, per original iteration), the loops slower than
after the lowering alone, the largest loss against it, and for `modelled`
the loops slower than `category`; and, as `no order below`, the geomean of
what no order of the lowered body can beat (`BodyModel.bound`: buffer
reuse and the other constraints every order has) over the same bound, the
floor of any reordering. Then the examples' efficiency at the
stages the advisor chooses with `order=modelled`, and with `--pass-time`
the time of the pass per order on the `bench` families at about 10,000 ops.

The kernels come from the property tests' generator
(`bench/kernels/strategies.py`, with hypothesis' fixed `seed`), so the
corpus is the same on every run of one hypothesis version. Writes
`orders.json` (with each loop's time over bound per depth and order, to
redraw) and `orders.md` into `--out` (default `bench/results/`); `--plot`
draws the ratios (`bench.orders_plot`, `.svg` or `.png`).
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, Phase, given, seed, settings
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from bench import command_line
from bench.cases import FAMILIES, MAX_COPIES, Scale, parse
from bench.kernels.strategies import GeneratedKernel, kernels
from bench.orders_plot import plot_orders
from passes.canonicalize_io_order import (
    ORDER_NAMES,
    SEARCH_BUDGET,
    CanonicalizeIOOrderPass,
    OrderName,
)
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.orders.body_model import BodyModel
from passes.schedule.advisor import StagesAdvisor
from passes.schedule.engines import CostModel, default_costs
from passes.schedule.lowered import Figures
from passes.schedule.report import LoopReport, pass_pipeline, run_report
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context

REORDERED: tuple[OrderName, ...] = ORDER_NAMES
ORDERS = ("input", "lowering", *REORDERED)
DEPTHS = (2, 4, 8)
KERNELS = 300
SEED = 27
EXAMPLES = sorted((Path(__file__).parents[1] / "examples").glob("*.mlir"))
TOLERANCE = 1e-9
PASS_TIME_OPS = 10_000


def corpus(count: int, seed_value: int) -> list[str]:
    """`count` distinct generated kernels (fixed seed), then the examples."""
    found: dict[str, None] = {}

    @seed(seed_value)
    @settings(
        max_examples=4 * count,
        phases=[Phase.generate],
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(kernels())
    def collect(kernel: GeneratedKernel) -> None:
        if len(found) < count and "pypto.pipeline" in kernel.text:
            found[kernel.text] = None

    collect()
    return [*found, *(path.read_text() for path in EXAMPLES)]


def cost_table(depth: int, directory: Path) -> tuple[CostModel, Path]:
    """The bundled table at queue depth `depth`, and a file holding it."""
    path = directory / f"depth-{depth}.json"
    table = json.loads(
        (
            Path(__file__).parents[1] / "passes" / "schedule" / "default_costs.json"
        ).read_text()
    )
    table["queue_depth"] = depth
    path.write_text(json.dumps(table))
    return dataclasses.replace(default_costs(), queue_depth=depth), path


def pipelines(costs: Path) -> dict[str, str]:
    lower = "lower-pipeline-loops"
    return {
        "lowering": lower,
        **{
            order: f'{lower},canonicalize-io-order{{order={order} costs="{costs}"}}'
            for order in REORDERED
        },
    }


@dataclasses.dataclass
class Tally:
    """One order at one depth: time over bound of each loop, losses."""

    ratios: list[float] = dataclasses.field(default_factory=list[float])
    worse: int = 0
    worst: float = 0.0
    worse_than_category: int = 0

    def row(self) -> dict[str, Any]:
        return {
            "loops": len(self.ratios),
            "geomean_time_over_bound": geomean(self.ratios),
            "worse_than_lowering": self.worse,
            "worst_loss": self.worst,
            "worse_than_category": self.worse_than_category,
        }


def order_floor(figures: Figures, model: CostModel) -> float:
    """
    What no order of the loop's body can beat (`BodyModel.bound`: the busiest
    unit, or the slowest cycle of the constraints every order has, buffer
    reuse included) over the loop's bound (`max(ResMII, RecMII)`).
    """
    timeline = figures.timeline
    assert timeline.loop is not None, "a loop's figures"
    bound = max(timeline.bound, figures.recurrence.ratio)
    return BodyModel.prepare(timeline.loop, model).bound / bound if bound else 1.0


@dataclasses.dataclass
class LeftOut:
    """The loops a depth's tallies leave out, and why."""

    never_run: int = 0
    """Loops whose static trip count is 0: no order touches them."""
    not_comparable: int = 0
    """Loops costed otherwise before and after (`LoopReport.comparable`)."""


def measure_depth(
    texts: Sequence[str], model: CostModel, costs: Path
) -> tuple[dict[str, Tally], list[float], LeftOut]:
    """
    The tallies of each order over the loops of `texts`, each loop's
    `order_floor`, and the loops left out.
    """
    ctx = pypto_context()
    specs = {name: pass_pipeline(spec) for name, spec in pipelines(costs).items()}
    tallies = {order: Tally() for order in ORDERS}
    floors: list[float] = []
    left_out = LeftOut()
    for text in texts:
        module = parse_module(ctx, text)
        reports: dict[str, list[LoopReport]] = {
            name: run_report(ctx, module, model, spec) for name, spec in specs.items()
        }
        for index, lowered in enumerate(reports["lowering"]):
            if lowered.after is None:
                continue
            if lowered.before.whole.trip == 0:
                left_out.never_run += 1
                continue
            if not lowered.comparable:
                left_out.not_comparable += 1
                continue
            base = lowered.after.time
            floors.append(order_floor(lowered.after, model))
            figures = {"input": lowered.before, "lowering": lowered.after}
            for order in REORDERED:
                after = reports[order][index].after
                assert after is not None, "the orders keep every loop of the lowering"
                figures[order] = after
            category = figures["category"].time
            for order, figure in figures.items():
                tally = tallies[order]
                tally.ratios.append(figure.time / figure.bound if figure.bound else 1.0)
                if base and figure.time > base * (1 + TOLERANCE):
                    tally.worse += 1
                    tally.worst = max(tally.worst, figure.time / base - 1)
                if figure.time > category * (1 + TOLERANCE):
                    tally.worse_than_category += 1
    return tallies, floors, left_out


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(statistics.fmean(map(math.log, values))) if values else None


def advised_examples(model: CostModel, costs: Path) -> list[dict[str, Any]]:
    """Each example's advised stages with `order=modelled`, and its efficiency there."""
    ctx = pypto_context()
    advisor = StagesAdvisor(ctx, model, pass_pipeline(pipelines(costs)["modelled"]))
    rows: list[dict[str, Any]] = []
    for path in EXAMPLES:
        module = parse_module(ctx, path.read_text())
        for advice in advisor.advise(module, run_report(ctx, module, model)):
            best = advice.suggestion
            figures = None if best is None else best.figures
            rows.append(
                {
                    "example": path.name,
                    "stages": None if best is None else best.stages,
                    "efficiency": None if figures is None else figures.efficiency,
                }
            )
    return rows


def pass_times(
    repeat: int = 3,
    orders: Sequence[OrderName] = REORDERED,
    search_budget: int = SEARCH_BUDGET,
    ops: int = PASS_TIME_OPS,
) -> list[dict[str, Any]]:
    """
    Median seconds of `canonicalize-io-order` per order (`modelled` with
    `search_budget`) on the families near `ops` ops.
    """
    ctx = pypto_context()
    rows: list[dict[str, Any]] = []
    for name, parameter, lowered in lowered_families(ctx, ops):
        row: dict[str, Any] = {"family": name, "parameter": parameter}
        for order in orders:
            reorder = CanonicalizeIOOrderPass(order=order, search_budget=search_budget)
            row[order] = statistics.median(
                time_pass(ctx, lowered, reorder) for _ in range(repeat)
            )
        rows.append(row)
    return rows


def lowered_families(ctx: Context, ops: int) -> Iterator[tuple[str, int, ModuleOp]]:
    """Each `bench` family near `ops` ops: its name, parameter and lowered module."""
    scale = Scale([ops], [16])
    for family in FAMILIES:
        parameter = min(family.parameters(scale), key=lambda p: abs(p - ops))
        lowered = parse(ctx, family.make(parameter).text)
        LowerPipelineLoopsPass(max_copies=MAX_COPIES).apply(ctx, lowered)
        yield family.name, parameter, lowered


def time_pass(
    ctx: Context, module: ModuleOp, reorder: CanonicalizeIOOrderPass
) -> float:
    """Seconds of `reorder` on a copy of `module` (the copy made untimed)."""
    copy = module.clone()
    start = time.perf_counter()
    reorder.apply(ctx, copy)
    return time.perf_counter() - start


def markdown(results: dict[str, Any]) -> str:
    left_out = next(iter(results["left_out"].values()))
    lines = [
        f"Corpus: {results['kernels']} generated kernels (seed {results['seed']}) "
        f"and {len(EXAMPLES)} examples, {results['loops']} loops; left out: "
        f"{left_out['never_run']} that never run (static trip count 0), "
        f"{left_out['not_comparable']} costed otherwise before and after (a nested "
        "pipeline of dynamic trip count).",
        "",
        "| depth | order | geomean time / bound | worse than lowering | worst loss | worse than category |",
        "|---|---|---|---|---|---|",
    ]
    for depth, rows in results["depths"].items():
        for order, row in rows.items():
            mean = row["geomean_time_over_bound"]
            lines.append(
                f"| {depth} | {order} | {'-' if mean is None else f'{mean:.3f}'} "
                f"| {row['worse_than_lowering']} | {row['worst_loss']:.1%} "
                f"| {row['worse_than_category']} |"
            )
        floor = results.get("floors", {}).get(depth)
        if floor is not None:
            lines.append(f"| {depth} | no order below | {floor:.3f} | | | |")
    lines += [
        "",
        "| example | advised stages (modelled) | efficiency |",
        "|---|---|---|",
    ]
    for row in results["examples"]:
        efficiency = row["efficiency"]
        lines.append(
            f"| {row['example']} | {row['stages']} | "
            f"{'-' if efficiency is None else f'{efficiency:.1%}'} |"
        )
    if results.get("pass_times"):
        lines += [
            "",
            "| family | parameter | category s | engine s | modelled s | modelled / category |",
            "|---|---|---|---|---|---|",
        ]
        for row in results["pass_times"]:
            lines.append(
                f"| {row['family']} | {row['parameter']} | {row['category']:.3f} | "
                f"{row['engine']:.3f} | {row['modelled']:.3f} | "
                f"{row['modelled'] / row['category']:.1f} |"
            )
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line("orders", __doc__)
    parser.add_argument("--kernels", type=int, default=KERNELS)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--depths", type=int, nargs="+", default=list(DEPTHS))
    parser.add_argument("--out", type=Path, default=Path("bench/results"))
    parser.add_argument("--plot", type=Path, nargs="*", default=[])
    parser.add_argument("--pass-time", action="store_true")
    args = parser.parse_args(argv)
    texts = corpus(args.kernels, args.seed)
    results: dict[str, Any] = {"kernels": len(texts) - len(EXAMPLES), "seed": args.seed}
    ratios: dict[int, dict[str, list[float]]] = {}
    with tempfile.TemporaryDirectory() as directory:
        depths: dict[str, Any] = {}
        for depth in args.depths:
            model, costs = cost_table(depth, Path(directory))
            tallies, floors, left_out = measure_depth(texts, model, costs)
            depths[str(depth)] = {order: t.row() for order, t in tallies.items()}
            results.setdefault("left_out", {})[str(depth)] = dataclasses.asdict(
                left_out
            )
            results.setdefault("floors", {})[str(depth)] = geomean(floors)
            ratios[depth] = {order: t.ratios for order, t in tallies.items()}
            print(f"depth {depth}: done", file=sys.stderr)
        results["depths"] = depths
        results["ratios"] = {str(depth): by_order for depth, by_order in ratios.items()}
        results["loops"] = len(ratios[args.depths[0]]["input"])
        model, costs = cost_table(2, Path(directory))
        results["examples"] = advised_examples(model, costs)
    if args.pass_time:
        results["pass_times"] = pass_times()
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "orders.json").write_text(json.dumps(results, indent=2) + "\n")
    text = markdown(results)
    (args.out / "orders.md").write_text(text)
    for path in args.plot:
        plot_orders(ratios, results["loops"], path)
    print(text)
