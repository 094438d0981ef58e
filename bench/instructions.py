"""
Instructions executed by each pass, counted by valgrind's callgrind: a measure
that the noise of a shared machine does not move (timings of one phase spread
by up to 1.8x here; counts of the same run agree to 1%).

    python -m bench instructions [--baseline DIR] [--families NAME ...]
                                 [--passes lower|canonicalize|canonicalize-engine|canonicalize-modelled|slots ...]
                                 [--sizes OPS ...] [--stages F ...] [--jobs N]

For the largest case of each family at the scale (default: 2,500 ops, F = 16),
each pass runs once in a process of its own under callgrind, which counts only
inside the pass: the pass is called through `itertools.starmap`, and
callgrind collects only within `starmap_next`. The process imports the
project from the current checkout and, with `--baseline`, from that one too
(as `bench/pass_times.py` does), so any revision with both passes can be
counted. Prints a Markdown table: millions of instructions per pass and
checkout, and baseline / current. About 20 s per run; `--jobs` runs at a time.
`canonicalize-engine` and `canonicalize-modelled` count
`canonicalize-io-order` with `order=engine` / `order=modelled` (after the
lowering, uncounted), for checkouts that have the option.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from bench import command_line
from bench.cases import FAMILIES, MAX_COPIES, Case, Scale

PASSES = ("lower", "canonicalize")
ORDERED = ("canonicalize-engine", "canonicalize-modelled")
"""`canonicalize-io-order{order=engine}` and `{order=modelled}` (this checkout's)."""
CHOICES = (*PASSES, *ORDERED, "slots")
"""`slots`: `lower-pipeline-to-slots` on the case's module. The orders and the
slots are not defaults: a checkout without them cannot be counted."""

_CHILD = """
import itertools, sys
from xdsl.parser import Parser
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context

path, counted, max_copies = sys.argv[1], sys.argv[2], int(sys.argv[3])
ctx = pypto_context()
module = Parser(ctx, open(path).read()).parse_module()
name, _, order = counted.partition("-")
reorder = CanonicalizeIOOrderPass(**({"order": order} if order else {}))
passes = (
    ("lower", LowerPipelineLoopsPass(max_copies=max_copies).apply),
    ("canonicalize", reorder.apply),
)
if counted == "slots":
    from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass

    passes = (("slots", LowerPipelineToSlotsPass().apply),)
for step, apply in passes:
    if step == name:
        list(itertools.starmap(apply, [(ctx, module)]))  # counted: in starmap_next
        break
    apply(ctx, module)
"""
"""One pass counted on one module, with the project imported from `PYTHONPATH`."""

_COLLECTED = re.compile(r"^==\d+== Collected : (\d+)$", re.MULTILINE)


@dataclass(frozen=True)
class Run:
    """One count: a pass on a case, with the project of one checkout."""

    case: Case
    pass_name: str
    checkout: Path


def collected(stderr: str) -> int:
    """The instructions callgrind reports on `stderr`; a clear error if none."""
    found = _COLLECTED.search(stderr)
    if found is None or not int(found.group(1)):
        raise RuntimeError(
            "callgrind counted nothing (is starmap_next a symbol of this "
            f"Python?):\n{stderr[-2000:]}"
        )
    return int(found.group(1))


def count(run: Run, module: Path) -> int:
    """The instructions of `run.pass_name` on the module at `module`."""
    command = [
        "valgrind",
        "--tool=callgrind",
        "--collect-atstart=no",
        "--toggle-collect=starmap_next",
        f"--callgrind-out-file={os.devnull}",
        sys.executable,
        "-c",
        _CHILD,
        str(module),
        run.pass_name,
        str(MAX_COPIES),
    ]
    environment = os.environ | {
        "PYTHONPATH": str(run.checkout.resolve()),
        "PYTHONHASHSEED": "0",  # the same dict and set orders in every run
    }
    done = subprocess.run(
        command,
        check=False,
        capture_output=True,
        text=True,
        env=environment,
        cwd=run.checkout,
    )
    if done.returncode:
        raise RuntimeError(
            f"{' '.join(command[:5])} ... failed:\n{done.stderr[-2000:]}"
        )
    return collected(done.stderr)


def largest_cases(scale: Scale, names: Sequence[str]) -> list[Case]:
    """The case of the largest parameter of each family named in `names`."""
    return [
        family.make(max(family.parameters(scale)))
        for family in FAMILIES
        if family.name in names
    ]


def table(
    cases: Sequence[Case],
    counts: dict[Run, int],
    current: Path,
    baseline: Path | None,
    passes: Sequence[str] = PASSES,
) -> str:
    """The Markdown table of `counts`, in millions of instructions."""
    header = "| case | pass | current (M) |"
    rule = "|---|---|---|"
    if baseline is not None:
        header += " baseline (M) | baseline / current |"
        rule += "---|---|"
    lines = [header, rule]
    for case in cases:
        for pass_name in passes:
            ours = counts[Run(case, pass_name, current)]
            line = (
                f"| {case.family} {case.parameter} | {pass_name} | {ours / 1e6:.1f} |"
            )
            if baseline is not None:
                theirs = counts[Run(case, pass_name, baseline)]
                line += f" {theirs / 1e6:.1f} | {theirs / ours:.2f} |"
            lines.append(line)
    return "\n".join(lines)


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = command_line(
        "instructions", "Instructions of both passes under callgrind, per case."
    )
    parser.add_argument("--baseline", type=Path, help="a checkout to compare with")
    parser.add_argument(
        "--families",
        nargs="+",
        choices=[family.name for family in FAMILIES],
        default=[family.name for family in FAMILIES],
    )
    parser.add_argument("--passes", nargs="+", choices=CHOICES, default=list(PASSES))
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_500])
    parser.add_argument("--stages", type=int, nargs="+", default=[16])
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    if shutil.which("valgrind") is None:
        sys.exit("python -m bench instructions needs valgrind on the PATH")
    current = Path(__file__).parents[1]
    checkouts = [current] if args.baseline is None else [current, args.baseline]
    cases = largest_cases(Scale(args.sizes, args.stages), args.families)
    runs = [
        Run(c, p, checkout)
        for c in cases
        for p in args.passes
        for checkout in checkouts
    ]
    with tempfile.TemporaryDirectory() as directory:
        modules = {
            id(case): Path(directory) / f"{i}.mlir" for i, case in enumerate(cases)
        }
        for case in cases:
            modules[id(case)].write_text(case.text)

        def count_run(run: Run) -> int:
            return count(run, modules[id(run.case)])

        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            counts = dict(zip(runs, pool.map(count_run, runs), strict=True))
    print(table(cases, counts, current, args.baseline, args.passes))
