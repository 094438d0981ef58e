"""
Benchmarks of `lower-pipeline-loops` and `canonicalize-io-order`.

    python bench/run.py [--sizes OPS ...] [--stages F ...] [--repeat N]
                        [--out DIR] [--smoke] [--families NAME ...]

For every synthetic module (`synthetic.py`) it measures, in this process with
`time.perf_counter` (median of `--repeat` runs): parse, each pass, print, and
parse of the printed output; then the wall time of the end-to-end command
`xdsl-opt -p lower-pipeline-loops,canonicalize-io-order` in a subprocess.
It derives the ratios of `docs/performance.md`, and writes `results.json`
and `results.md` into `--out` (default `bench/results/`).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from importlib.metadata import version
from io import StringIO
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import synthetic
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.transforms.scf_for_loop_unroll import ScfForLoopUnrollPass

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.utils import walk_ops

PIPELINE = "lower-pipeline-loops,canonicalize-io-order"
DEFAULT_SIZES = (1_000, 2_500, 5_000, 10_000, 25_000, 50_000)
"""Ops after lowering of the `loops` and `unroll` families."""
DEFAULT_STAGES = (8, 16, 32, 64)
"""F of the `stages-static` and `stages-dynamic` families."""

KERNEL_STAGES = 4
KERNEL_TRIP = 10
"""The `loops` kernels: 10 iterations with 4 stages, so a 2-copy remainder."""
NESTED_ITEMS = 32
STATIC_ITEMS = 12
DYNAMIC_ITEMS = 3

TARGET_PASSES_OVER_IO = 0.5
TARGET_OPS_FOR_IO_RATIO = 10_000
TARGET_LOWER_OVER_UNROLL = 1.5
TARGET_EXPONENT = 1.15

PHASES = ("parse", "lower", "canonicalize", "print", "parse_output")
WITHOUT_GC = ("lower_without_gc", "canonicalize_without_gc")
"""The passes again with the cyclic garbage collector off (as `timeit` does)."""
FITTED = (*PHASES, *WITHOUT_GC)


# --------------------------------------------------------------------------- #
# The cases
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class Case:
    """One module to measure, and the `scf.for` twin whose unrolling it matches."""

    family: str
    parameter: int
    text: str
    unroll_twin: str | None = None


@dataclass(frozen=True)
class Scale:
    """How far the families go: the `--sizes` and `--stages` options."""

    sizes: Sequence[int]
    """Ops after lowering of the `loops` and `unroll` modules."""
    stages: Sequence[int]
    """F of the `stages-*` modules."""


@dataclass(frozen=True)
class Family:
    """A kind of module, scaled by one parameter."""

    name: str
    description: str
    parameter: str
    """What the parameter counts."""
    parameters: Callable[[Scale], Sequence[int]]
    """The parameters to run at a scale."""
    make: Callable[[int], Case]


def _parse(ctx: Context, text: str) -> ModuleOp:
    return Parser(ctx, text).parse_module()


def _count_ops(module: Operation) -> int:
    return sum(1 for _ in walk_ops(module))


def _kernel_pairs(sizes: Sequence[int], trip: int) -> list[int]:
    """The numbers of kernel pairs whose lowered module has about `sizes` ops."""
    lowered = _parse(pypto_context(), synthetic.kernels_module(1, trip, KERNEL_STAGES))
    LowerPipelineLoopsPass().apply(pypto_context(), lowered)
    per_pair = _count_ops(lowered) - 1  # without the module
    return sorted({max(1, round(size / per_pair)) for size in sizes})


def _kernels(pairs: int) -> Case:
    text = synthetic.kernels_module(pairs, KERNEL_TRIP, KERNEL_STAGES)
    return Case("loops", pairs, text)


def _unroll(pairs: int) -> Case:
    # As many iterations as stages: both passes make `stages` copies of each body.
    text = synthetic.kernels_module(pairs, KERNEL_STAGES, KERNEL_STAGES)
    twin = synthetic.kernels_module(pairs, KERNEL_STAGES, None)
    return Case("unroll", pairs, text, twin)


def _stores(mode: synthetic.WindowMode) -> Family:
    def make(stores: int) -> Case:
        text = synthetic.items_module(stores // 2, 2, 2, mode)
        return Case(f"stores-{mode.value}", stores, text)

    return Family(
        f"stores-{mode.value}",
        f"one block with N stores to one tensor: {mode.description}",
        "stores",
        lambda _: (250, 500, 1_000, 2_000),
        make,
    )


FAMILIES: tuple[Family, ...] = (
    Family(
        "loops",
        f"pairs of softmax and matmul kernels, {KERNEL_TRIP} iterations, "
        f"stages {KERNEL_STAGES}",
        "kernel pairs",
        lambda scale: _kernel_pairs(scale.sizes, KERNEL_TRIP),
        _kernels,
    ),
    Family(
        "unroll",
        f"the same kernels with {KERNEL_STAGES} iterations; ratio (b) against "
        "scf-for-loop-unroll",
        "kernel pairs",
        lambda scale: _kernel_pairs(scale.sizes, KERNEL_STAGES),
        _unroll,
    ),
    *(_stores(mode) for mode in synthetic.WindowMode),
    Family(
        "stages-static",
        f"one pipeline, {STATIC_ITEMS} items, 2F-1 iterations (F-1 remainder copies)",
        "F",
        lambda scale: scale.stages,
        lambda f: Case(
            "stages-static", f, synthetic.items_module(STATIC_ITEMS, f, 2 * f - 1)
        ),
    ),
    Family(
        "stages-dynamic",
        f"one pipeline, {DYNAMIC_ITEMS} items, dynamic upper bound "
        "(F + F(F-1)/2 copies)",
        "F",
        lambda scale: scale.stages,
        lambda f: Case(
            "stages-dynamic", f, synthetic.items_module(DYNAMIC_ITEMS, f, None)
        ),
    ),
    Family(
        "nesting",
        f"pipelines nested D deep, stages 2 each, {NESTED_ITEMS} items innermost",
        "depth",
        lambda _: (2, 3, 4, 5, 6),
        lambda depth: Case(
            "nesting", depth, synthetic.nested_module(depth, NESTED_ITEMS)
        ),
    ),
)


# --------------------------------------------------------------------------- #
# Measuring
# --------------------------------------------------------------------------- #


@dataclass
class Measurement:
    """The samples of one case, in seconds, and the sizes involved."""

    family: str
    parameter: int
    ops_in: int = 0
    ops_out: int = 0
    created_by_lowering: int = 0
    created_by_unroll: int = 0
    samples: dict[str, list[float]] = field(default_factory=dict[str, list[float]])

    def add(self, phase: str, seconds: float) -> None:
        self.samples.setdefault(phase, []).append(seconds)

    def median(self, phase: str) -> float:
        return statistics.median(self.samples[phase])

    @property
    def passes_over_io(self) -> float:
        """Ratio (a): both passes / (parse + print of the output)."""
        passes = self.median("lower") + self.median("canonicalize")
        return passes / (self.median("parse_output") + self.median("print"))

    @property
    def lower_over_unroll(self) -> float | None:
        """Ratio (b): lowering time per created op / unrolling time per created op."""
        if "unroll" not in self.samples:
            return None
        lower = self.median("lower") / self.created_by_lowering
        return lower / (self.median("unroll") / self.created_by_unroll)


_T = TypeVar("_T")


class _Stopwatch:
    """Times phases into a `Measurement`, after a full collection each."""

    def __init__(self, measurement: Measurement):
        self.measurement = measurement

    def time(self, phase: str, run: Callable[[], _T]) -> _T:
        gc.collect()
        start = time.perf_counter()
        result = run()
        self.measurement.add(phase, time.perf_counter() - start)
        return result


def _created_ops(module: ModuleOp, apply: Callable[[], None]) -> int:
    """Apply a transformation and count the ops it created (untimed)."""
    before = set(walk_ops(module))
    apply()
    return sum(1 for op in walk_ops(module) if op not in before)


def _print(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


def _measure_once(case: Case, watch: _Stopwatch, first: bool) -> None:
    """One run of the phases; the first run also counts ops and verifies."""
    ctx = pypto_context()
    result = watch.measurement
    lower, canonicalize = LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()
    module = watch.time("parse", lambda: _parse(ctx, case.text))
    if first:
        result.ops_in = _count_ops(module)
        copy = _parse(ctx, case.text)
        result.created_by_lowering = _created_ops(copy, lambda: lower.apply(ctx, copy))
    watch.time("lower", lambda: lower.apply(ctx, module))
    watch.time("canonicalize", lambda: canonicalize.apply(ctx, module))
    if first:
        module.verify()
        result.ops_out = _count_ops(module)
    output = watch.time("print", lambda: _print(module))
    watch.time("parse_output", lambda: _parse(ctx, output))

    module = _parse(ctx, case.text)
    with _collector_off():
        watch.time(WITHOUT_GC[0], lambda: lower.apply(ctx, module))
        watch.time(WITHOUT_GC[1], lambda: canonicalize.apply(ctx, module))

    if case.unroll_twin is None:
        return
    twin = _parse(ctx, case.unroll_twin)
    unroll = ScfForLoopUnrollPass()
    if first:
        result.created_by_unroll = _created_ops(twin, lambda: unroll.apply(ctx, twin))
        twin = _parse(ctx, case.unroll_twin)
    watch.time("unroll", lambda: unroll.apply(ctx, twin))


@contextmanager
def _collector_off() -> Generator[None]:
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _xdsl_opt() -> str:
    beside = Path(sys.executable).parent / "xdsl-opt"
    return str(beside) if beside.exists() else "xdsl-opt"


def _measure_end_to_end(text: str, watch: _Stopwatch, repeat: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "input.mlir")
        path.write_text(text)
        command = [_xdsl_opt(), str(path), "-p", PIPELINE, "-o", os.devnull]
        for _ in range(repeat):
            watch.time("end_to_end", lambda: subprocess.run(command, check=True))


def measure(case: Case, repeat: int) -> Measurement:
    """All the phases of `case`, `repeat` times each."""
    result = Measurement(case.family, case.parameter)
    watch = _Stopwatch(result)
    for run in range(repeat):
        _measure_once(case, watch, first=run == 0)
    _measure_end_to_end(case.text, watch, repeat)
    return result


# --------------------------------------------------------------------------- #
# The report
# --------------------------------------------------------------------------- #


def scaling_exponent(ops: Sequence[int], seconds: Sequence[float]) -> float | None:
    """The slope of the least-squares line through `(log ops, log seconds)`."""
    if len(set(ops)) < 2:
        return None
    slope, _ = np.polyfit(np.log(ops), np.log(seconds), 1)
    return float(slope)


def exponents(results: Sequence[Measurement]) -> dict[str, dict[str, float | None]]:
    """Per family, the scaling exponent of each phase over its cases (x = ops out)."""
    by_family: dict[str, list[Measurement]] = {}
    for result in results:
        by_family.setdefault(result.family, []).append(result)
    return {
        family: {
            phase: scaling_exponent(
                [m.ops_out for m in cases], [m.median(phase) for m in cases]
            )
            for phase in FITTED
        }
        for family, cases in by_family.items()
    }


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    models = (line.split(":", 1)[1].strip() for line in lines if "model name" in line)
    return next(models, platform.processor() or "unknown")


def machine() -> dict[str, Any]:
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
        "xdsl": version("xdsl"),
        "load_average": os.getloadavg()[0],
    }


def targets(
    results: Sequence[Measurement], fitted: dict[str, dict[str, float | None]]
) -> list[dict[str, Any]]:
    """Each target, the value measured and whether it is met."""
    checks: list[dict[str, Any]] = []
    loops = [m for m in results if m.family == "loops"]
    if loops:
        nearest = min(loops, key=lambda m: abs(m.ops_out - TARGET_OPS_FOR_IO_RATIO))
        checks.append(
            {
                "target": f"(a) passes / (parse + print of the output) at "
                f"{nearest.ops_out} ops <= {TARGET_PASSES_OVER_IO}",
                "value": nearest.passes_over_io,
                "met": nearest.passes_over_io <= TARGET_PASSES_OVER_IO,
            }
        )
    ratios = [r for m in results if (r := m.lower_over_unroll) is not None]
    if ratios:
        checks.append(
            {
                "target": f"(b) lowering / unrolling per created op, worst of "
                f"{len(ratios)} sizes <= {TARGET_LOWER_OVER_UNROLL}",
                "value": max(ratios),
                "met": max(ratios) <= TARGET_LOWER_OVER_UNROLL,
            }
        )
    for family, phases in fitted.items():
        for phase in ("lower", "canonicalize", *WITHOUT_GC):
            exponent = phases[phase]
            if exponent is None:
                continue
            checks.append(
                {
                    "target": f"(c) exponent of {phase}, {family} <= {TARGET_EXPONENT}",
                    "value": exponent,
                    "met": exponent <= TARGET_EXPONENT,
                }
            )
    return checks


def _row(cells: Iterator[str] | Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def markdown(report: dict[str, Any], results: Sequence[Measurement]) -> str:
    """The tables of `report` (times in ms, medians)."""
    timed = (*PHASES, "end_to_end", *WITHOUT_GC)
    lines = ["## Families", "", _row(["family", "param", "module"]), _row(["---"] * 3)]
    lines += [
        _row([name, family["parameter"], family["module"]])
        for name, family in report["families"].items()
    ]
    lines += [
        "",
        f"## Times (ms, median of {report['settings']['repeat']} runs)",
        "",
        _row(["family", "param", "ops in", "ops out", *timed, "(a)", "(b)"]),
        _row(["---"] * (len(timed) + 6)),
    ]
    lines += [
        _row(
            [
                m.family,
                str(m.parameter),
                str(m.ops_in),
                str(m.ops_out),
                *(_ms(m.median(phase)) for phase in timed),
                _ratio(m.passes_over_io),
                _ratio(m.lower_over_unroll),
            ]
        )
        for m in results
    ]
    lines += [
        "",
        "## Scaling exponents (log-log fit of time vs ops out)",
        "",
        _row(["family", *FITTED]),
        _row(["---"] * (len(FITTED) + 1)),
    ]
    lines += [
        _row([family, *(_ratio(fitted[phase]) for phase in FITTED)])
        for family, fitted in report["exponents"].items()
    ]
    lines += ["", "## Targets", "", _row(["target", "value", "met"]), _row(["---"] * 3)]
    lines += [
        _row([check["target"], _ratio(check["value"]), "yes" if check["met"] else "NO"])
        for check in report["targets"]
    ]
    info = report["machine"]
    lines += [
        "",
        f"Machine: {info['cpu']}, {info['cores']} cores, {info['system']}, "
        f"Python {info['python']}, xDSL {info['xdsl']}; load average "
        f"{info['load_average']:.2f} at start, {report['load_average_end']:.2f} at end.",
    ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- #
# Command line
# --------------------------------------------------------------------------- #


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Benchmarks of lower-pipeline-loops and canonicalize-io-order."
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
        "--families",
        nargs="+",
        choices=[family.name for family in FAMILIES],
        default=[family.name for family in FAMILIES],
    )
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    repeat = 1 if args.smoke else args.repeat
    scale = Scale(args.sizes, args.stages)
    cases = [
        family.make(parameter)
        for family in FAMILIES
        if family.name in args.families
        for parameter in family.parameters(scale)[: 1 if args.smoke else None]
    ]
    if not args.smoke:
        # Warm up (imports, lazy definitions) on the smallest case, untimed.
        measure(min(cases, key=lambda case: len(case.text)), 1)
    report: dict[str, Any] = {
        "machine": machine(),
        "settings": {
            "repeat": repeat,
            "smoke": args.smoke,
            "sizes": args.sizes,
            "stages": args.stages,
        },
        "families": {
            family.name: {"parameter": family.parameter, "module": family.description}
            for family in FAMILIES
            if family.name in args.families
        },
    }
    results: list[Measurement] = []
    for case in cases:
        print(f"{case.family} {case.parameter}", file=sys.stderr, flush=True)
        results.append(measure(case, repeat))
    report["exponents"] = exponents(results)
    report["targets"] = targets(results, report["exponents"])
    report["load_average_end"] = os.getloadavg()[0]
    report["cases"] = [
        {
            **asdict(m),
            "medians": {phase: m.median(phase) for phase in m.samples},
            "passes_over_io": m.passes_over_io,
            "lower_over_unroll": m.lower_over_unroll,
        }
        for m in results
    ]
    args.out.mkdir(parents=True, exist_ok=True)
    Path(args.out, "results.json").write_text(json.dumps(report, indent=2) + "\n")
    table = markdown(report, results)
    Path(args.out, "results.md").write_text(table)
    print(table)


if __name__ == "__main__":
    main()
