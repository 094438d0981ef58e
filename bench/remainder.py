"""
The remainder strategies against F (the target): for a loop with
dynamic bounds and `stages` F, the ops each strategy of
`passes.schedule.defaults.STRATEGIES` emits and the time of its passes.

    python -m bench remainder [--stages F ...] [--repeat N] [--json OUT] [--plot OUT.svg]

prints a table (F, then per strategy the ops of the output and the median
CPU time of its passes in milliseconds, in this process with
`time.process_time`, as the machine may be shared; each run on a fresh
parse after a full collection). The `max-copies` limit of
`lower-pipeline-loops` is lifted: the cascade at F = 64 has 2,080 copies.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from matplotlib.ticker import NullFormatter
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe

from bench import command_line
from bench.plot import pyplot, save
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.schedule.defaults import STRATEGIES
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops

DEFAULT_STAGES = (2, 4, 8, 16, 32, 64)
UNLIMITED_COPIES = 1 << 20
"""`max-copies` for the benchmark: no strategy at F <= 64 comes near it."""

KERNEL = """
func.func @add_one(%x: !pypto.tensor<1048576xf32>, %out: !pypto.tensor<1048576xf32>, %n: index) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages {stages} {{
    %c128 = arith.constant 128 : index
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1048576xf32> -> !pypto.tile<128xf32, vec>
    %one = arith.constant 1.0 : f32
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1048576xf32>
  }}
  func.return
}}
"""
"""`examples/add_one.mlir` with a dynamic trip count `%n`."""


def strategy_passes(spec: str) -> tuple[ModulePass, ...]:
    """The passes of a strategy, with `max-copies` lifted."""
    passes = PassPipeline.parse_spec(Universe.get_multiverse().all_passes, spec).passes
    return tuple(
        dataclasses.replace(pass_, max_copies=UNLIMITED_COPIES)
        if isinstance(pass_, LowerPipelineLoopsPass)
        else pass_
        for pass_ in passes
    )


def measure(stages: int, spec: str, repeat: int) -> tuple[int, float]:
    """The ops of the output and the median seconds of the strategy's passes."""
    ctx = pypto_context()
    text = KERNEL.format(stages=stages)
    passes = strategy_passes(spec)
    times: list[float] = []
    ops = 0
    for _ in range(repeat):
        module = Parser(ctx, text).parse_module()
        gc.collect()
        start = time.process_time()
        for pass_ in passes:
            pass_.apply(ctx, module)
        times.append(time.process_time() - start)
        ops = sum(1 for _ in walk_ops(module))
    return ops, statistics.median(times)


@dataclass(frozen=True)
class Row:
    """One F: per strategy name, the ops of the output and the median seconds."""

    stages: int
    figures: dict[str, tuple[int, float]]

    def to_json(self) -> dict[str, object]:
        return {
            "stages": self.stages,
            **{
                name: {"ops": ops, "seconds": seconds}
                for name, (ops, seconds) in self.figures.items()
            },
        }


def run(stages: Sequence[int], repeat: int) -> list[Row]:
    """One row per F, every strategy."""
    return [
        Row(f, {name: measure(f, spec, repeat) for name, spec in STRATEGIES})
        for f in stages
    ]


def table(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table."""
    names = [name for name, _ in STRATEGIES]
    header = "| F | " + " | ".join(f"{n} ops | {n} ms" for n in names) + " |"
    lines = [header, "|" + "---:|" * (1 + 2 * len(names))]
    for row in rows:
        cells = [str(row.stages)]
        for name in names:
            ops, seconds = row.figures[name]
            cells += [f"{ops:,}", f"{seconds * 1e3:.1f}"]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows: Sequence[Row], output: Path) -> None:
    """Ops and pass time against F, one line per strategy, log-log."""
    figure, (ops_axis, time_axis) = pyplot.subplots(1, 2, figsize=(8.0, 3.2))
    stages = [row.stages for row in rows]
    for name, _ in STRATEGIES:
        ops_axis.plot(
            stages, [row.figures[name][0] for row in rows], marker="o", label=name
        )
        time_axis.plot(
            stages, [row.figures[name][1] * 1e3 for row in rows], marker="o", label=name
        )
    for axis, label in (
        (ops_axis, "ops after the passes"),
        (time_axis, "pass time (ms)"),
    ):
        axis.set_xscale("log", base=2)
        axis.set_yscale("log")
        axis.set_xticks(stages, [str(f) for f in stages])  # pyright: ignore[reportUnknownMemberType]
        axis.xaxis.set_minor_formatter(NullFormatter())
        axis.set_xlabel("stages F (dynamic trip count)")
        axis.set_ylabel(label)
        axis.grid(visible=True, which="both", linewidth=0.3)
        axis.legend()  # pyright: ignore[reportUnknownMemberType]
    figure.tight_layout()
    save(figure, output)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "remainder", "Ops and pass time of each remainder strategy against stages."
    )
    parser.add_argument("--stages", type=int, nargs="+", default=DEFAULT_STAGES)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", type=Path, help="also write the rows as JSON")
    parser.add_argument("--plot", type=Path, help="draw them (.svg, .png)")
    args = parser.parse_args(argv)
    rows = run(args.stages, args.repeat)
    print(table(rows))
    if args.json is not None:
        rows_json = [row.to_json() for row in rows]
        args.json.write_text(json.dumps(rows_json, indent=1) + "\n")
    if args.plot is not None:
        plot(rows, args.plot)
