"""
Start-up time of the tools, as ratios to stock `xdsl-opt` measured in the
same run: `--help` of each tool against `xdsl-opt --help`, and
each tool on `examples/add_one.mlir` against `xdsl-opt` on the same file.

    python -m bench startup [--runs N] [--baseline DIR]

Every command is a fresh process of this environment's console scripts,
timed with `time.perf_counter` around `subprocess.run`; one untimed run of
each, then `--runs` rounds that run every command once, in an order drawn
anew each round (seeded), so that the machine's load falls on all alike.
The table gives medians, then the load average before and after. `--baseline`
also times the tools of another checkout (its root on `PYTHONPATH`, which
the console scripts then import `pypto_dialect` from), in the same rounds.
"""

from __future__ import annotations

import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from bench import command_line

ROOT = Path(__file__).parents[1]
ADD_ONE = "examples/add_one.mlir"


@dataclass(frozen=True)
class Command:
    """A timed command line, compared with `baseline` (a `Command.label`)."""

    tool: str
    arguments: tuple[str, ...]
    baseline: str | None = None
    target: float | None = None
    """The largest ratio to `baseline` the target accepts, if it sets one."""

    @property
    def label(self) -> str:
        return " ".join((self.tool, *self.arguments))


COMMANDS = (
    Command("xdsl-opt", ("--help",)),
    Command("pypto-opt", ("--help",), "xdsl-opt --help", 1.2),
    Command("pypto-run", ("--help",), "xdsl-opt --help", 1.2),
    Command("pypto-report", ("--help",), "xdsl-opt --help", 1.2),
    Command("xdsl-opt", (ADD_ONE,)),
    Command("pypto-opt", (ADD_ONE,), f"xdsl-opt {ADD_ONE}"),
    Command("pypto-run", (ADD_ONE,), f"xdsl-opt {ADD_ONE}", 2.0),
    Command("pypto-report", (ADD_ONE,), f"xdsl-opt {ADD_ONE}"),
)


def time_once(command: Command, checkout: Path | None) -> float:
    """Seconds of one run of `command`, with `checkout` on `PYTHONPATH` if given."""
    environment = dict(os.environ)
    if checkout is not None:
        environment["PYTHONPATH"] = str(checkout)
    executable = Path(sys.executable).parent / command.tool
    start = time.perf_counter()
    subprocess.run(
        [str(executable), *command.arguments],
        cwd=ROOT,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        check=True,
    )
    return time.perf_counter() - start


def measure(
    commands: Sequence[Command], runs: int, baseline: Path | None
) -> dict[str, dict[str, list[float]]]:
    """Samples (seconds) by checkout (`current`, `baseline`) and command label."""
    checkouts: dict[str, Path | None] = {"current": None}
    if baseline is not None:
        checkouts["baseline"] = baseline
    samples = {name: {c.label: list[float]() for c in commands} for name in checkouts}
    jobs = [(command, name) for command in commands for name in checkouts]
    for round_ in range(runs + 1):
        # A new order each round, so that no command always follows a heavy one.
        random.Random(round_).shuffle(jobs)
        for command, name in jobs:
            seconds = time_once(command, checkouts[name])
            if round_:  # the first round warms the caches, untimed
                samples[name][command.label].append(seconds)
    return samples


def table(
    commands: Sequence[Command], samples: Mapping[str, Mapping[str, Sequence[float]]]
) -> str:
    """The Markdown table of medians and ratios (and the baseline's, if measured)."""
    medians = {
        name: {label: statistics.median(values) for label, values in runs.items()}
        for name, runs in samples.items()
    }
    header = ["command", "median (s)", "ratio", "target"]
    if "baseline" in medians:
        header += ["baseline median (s)", "baseline ratio"]
    rows = [header, ["---"] * len(header)]
    for command in commands:
        row = [f"`{command.label}`"]
        for name in medians:
            median = medians[name][command.label]
            ratio = (
                ""
                if command.baseline is None
                else f"{median / medians[name][command.baseline]:.2f}"
            )
            row += [f"{median:.3f}", ratio]
            if name == "current":
                row.append("" if command.target is None else f"<= {command.target}")
        rows.append(row)
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "startup", "Start-up time of the tools against xdsl-opt's, in one run."
    )
    parser.add_argument(
        "--runs", type=int, default=15, help="timed runs of each command"
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of an earlier revision, timed in the same rounds",
    )
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    samples = measure(COMMANDS, args.runs, args.baseline)
    print(table(COMMANDS, samples))
    print(
        f"\n{args.runs} runs; load average {before:.1f} before, {os.getloadavg()[0]:.1f} after"
    )
