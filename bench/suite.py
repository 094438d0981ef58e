"""
The scaling suite: both passes on every family of cases, against the targets.

    python -m bench suite [--sizes OPS ...] [--stages F ...] [--repeat N]
                    [--out DIR] [--smoke] [--baseline DIR] [--families NAME ...]

For every case (`bench.cases`) it measures (`bench.measure`), in this process
with `time.perf_counter` (median of `--repeat` runs, more for a case of a few
milliseconds: `bench.measure.in_process_runs`): parse, each pass, print, and
parse of the printed output; then the wall time of the end-to-end command
`xdsl-opt -p lower-pipeline-loops,canonicalize-io-order` in a subprocess.
It derives the ratios and exponents of `docs/performance.md` (`bench.targets`),
and writes `results.json` and `results.md` into `--out` (default
`bench/results/`; `bench.report`).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import command_line
from bench.cases import (
    DEFAULT_SIZES,
    DEFAULT_STAGES,
    FAMILIES,
    Case,
    Scale,
    lowered_size,
)
from bench.measure import SHORT_CASE_SECONDS, Measurement, measure
from bench.report import build_report, machine, write
from bench.targets import TARGET_OPS_FOR_IO_RATIO


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = command_line(
        "suite", "Benchmarks of lower-pipeline-loops and canonicalize-io-order."
    )
    parser.add_argument(
        "--sizes",
        type=int,
        nargs="+",
        default=DEFAULT_SIZES,
        help="ops after lowering of the loops and unroll modules",
    )
    parser.add_argument(
        "--stages",
        type=int,
        nargs="+",
        default=DEFAULT_STAGES,
        help="F of the stages-static and stages-dynamic modules",
    )
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results")
    parser.add_argument(
        "--smoke",
        action="store_true",
        help="one run of the smallest case of each family",
    )
    parser.add_argument(
        "--baseline",
        type=Path,
        help="a checkout of the revision to compare with: speedups on every "
        "case, end to end / baseline on the loops case nearest 10,000 ops",
    )
    parser.add_argument(
        "--families",
        nargs="+",
        choices=[family.name for family in FAMILIES],
        default=[family.name for family in FAMILIES],
    )
    return parser.parse_args(argv)


def _baseline_case(cases: Sequence[Case]) -> Case | None:
    """The `loops` case whose lowered module is nearest 10,000 ops (end to end / baseline)."""
    loops = [case for case in cases if case.family == "loops"]
    if not loops:
        return None
    lowered = {id(case): lowered_size(case) for case in loops}
    return min(loops, key=lambda case: abs(lowered[id(case)] - TARGET_OPS_FOR_IO_RATIO))


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    repeat = 1 if args.smoke else args.repeat
    scale = Scale(args.sizes, args.stages)
    families = [family for family in FAMILIES if family.name in args.families]
    cases = [
        family.make(parameter)
        for family in families
        for parameter in family.parameters(scale)[: 1 if args.smoke else None]
    ]
    if not args.smoke:
        # Warm up (imports, lazy definitions) on the smallest case, untimed.
        measure(min(cases, key=lambda case: len(case.text)), 1)
    start = machine()
    compared = _baseline_case(cases) if args.baseline else None
    results: list[Measurement] = []
    for case in cases:
        print(f"{case.family} {case.parameter}", file=sys.stderr, flush=True)
        results.append(
            measure(
                case,
                repeat,
                args.baseline,
                end_to_end_baseline=case is compared,
                at_least=0.0 if args.smoke else SHORT_CASE_SECONDS,
            )
        )
    settings = {
        "repeat": repeat,
        "smoke": args.smoke,
        "sizes": args.sizes,
        "stages": args.stages,
        "baseline": None if args.baseline is None else str(args.baseline),
    }
    print(write(args.out, build_report(start, settings, families, results), results))
