"""
Timing of the cases: in this process with `time.perf_counter` after a full
collection each, and end to end with `xdsl-opt` in a subprocess.
"""

from __future__ import annotations

import gc
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Generator
from contextlib import contextmanager
from dataclasses import dataclass, field
from io import StringIO
from pathlib import Path
from typing import TypeVar

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer
from xdsl.transforms.scf_for_loop_unroll import ScfForLoopUnrollPass

from bench.cases import MAX_COPIES, Case, count_ops, parse
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops

PIPELINE = f"lower-pipeline-loops{{max-copies={MAX_COPIES}}},canonicalize-io-order"
BASELINE_PHASE = "end_to_end_baseline"
"""`end_to_end` with the project imported from a baseline checkout (end to end / baseline)."""
SEPARATE = ("lower_separate", "canonicalize_separate")
"""Both passes timed by `bench/pass_times.py` in processes of their own."""
SEPARATE_BASELINE = ("lower_baseline", "canonicalize_baseline")
"""The same with the project imported from a baseline checkout (the speedups)."""
PHASES = ("parse", "lower", "canonicalize", "slots", "print", "parse_output")
"""`slots`: `lower-pipeline-to-slots` on the same input as `lower` (slots / lower)."""
WITHOUT_GC = ("lower_without_gc", "canonicalize_without_gc")
"""The passes again with the cyclic garbage collector off (as `timeit` does)."""


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
    lower = LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    canonicalize = CanonicalizeIOOrderPass()
    module = watch.time("parse", lambda: parse(ctx, case.text))
    if first:
        result.ops_in = count_ops(module)
        copy = parse(ctx, case.text)
        result.created_by_lowering = _created_ops(copy, lambda: lower.apply(ctx, copy))
    watch.time("lower", lambda: lower.apply(ctx, module))
    watch.time("canonicalize", lambda: canonicalize.apply(ctx, module))
    if first:
        module.verify()
        result.ops_out = count_ops(module)
    unlowered = parse(ctx, case.text)
    watch.time("slots", lambda: LowerPipelineToSlotsPass().apply(ctx, unlowered))
    output = watch.time("print", lambda: _print(module))
    watch.time("parse_output", lambda: parse(ctx, output))

    module = parse(ctx, case.text)
    with _collector_off():
        watch.time(WITHOUT_GC[0], lambda: lower.apply(ctx, module))
        watch.time(WITHOUT_GC[1], lambda: canonicalize.apply(ctx, module))

    if case.unroll_twin is None:
        return
    twin = parse(ctx, case.unroll_twin)
    unroll = ScfForLoopUnrollPass()
    if first:
        result.created_by_unroll = _created_ops(twin, lambda: unroll.apply(ctx, twin))
        twin = parse(ctx, case.unroll_twin)
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


def _measure_end_to_end(
    text: str, watch: _Stopwatch, repeat: int, baseline: Path | None
) -> None:
    """
    `end_to_end`; with a `baseline` checkout, also `end_to_end_baseline`: the
    same command importing the project from there (first on `PYTHONPATH`),
    the two interleaved.
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "input.mlir")
        path.write_text(text)
        command = [_xdsl_opt(), str(path), "-p", PIPELINE, "-o", os.devnull]
        environment = (
            None
            if baseline is None
            else os.environ | {"PYTHONPATH": str(baseline.resolve())}
        )
        for _ in range(repeat):
            watch.time("end_to_end", lambda: subprocess.run(command, check=True))
            if environment is None:
                continue
            watch.time(
                BASELINE_PHASE,
                lambda: subprocess.run(command, check=True, env=environment),
            )


_PASS_TIMES = Path(__file__).with_name("pass_times.py")
_ROOT = _PASS_TIMES.parent.parent


def _measure_against_baseline(
    text: str, result: Measurement, repeat: int, baseline: Path
) -> None:
    """
    Both passes by `bench/pass_times.py`, with the project imported from here
    and from `baseline`, in alternating processes (`repeat` each).
    """
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder, "input.mlir")
        path.write_text(text)
        for _ in range(repeat):
            for root, phases in ((_ROOT, SEPARATE), (baseline, SEPARATE_BASELINE)):
                environment = os.environ | {"PYTHONPATH": str(root.resolve())}
                found = subprocess.run(
                    [sys.executable, str(_PASS_TIMES), str(path), "1", str(MAX_COPIES)],
                    check=False,  # the failure is raised below, with its stderr
                    capture_output=True,
                    text=True,
                    env=environment,
                )
                if found.returncode:
                    raise RuntimeError(
                        f"bench/pass_times.py failed with the project of {root}:\n"
                        + found.stderr[-2000:]
                    )
                samples = json.loads(found.stdout)
                for phase, name in zip(phases, ("lower", "canonicalize"), strict=True):
                    for seconds in samples[name]:
                        result.add(phase, seconds)


SHORT_CASE_SECONDS = 0.5
"""In a full run, both passes of a case's in-process runs take at least this
long together, within `MORE_RUNS_AT_MOST`."""
MORE_RUNS_AT_MOST = 5
"""How many times `repeat` a short case is run in this process at most."""


def in_process_runs(repeat: int, passes: float, at_least: float) -> int:
    """
    The in-process runs of a case whose passes took `passes` seconds in its
    first run: `repeat`, times as many (up to `MORE_RUNS_AT_MOST`) as make
    the passes take `at_least` seconds. Passes of a few milliseconds are
    within the machine's noise; more samples steady their medians.
    """
    if passes <= 0 or passes * repeat >= at_least:
        return repeat
    factor = math.ceil(at_least / (passes * repeat))
    return repeat * min(factor, MORE_RUNS_AT_MOST)


def measure(
    case: Case,
    repeat: int,
    baseline: Path | None = None,
    *,
    end_to_end_baseline: bool = False,
    at_least: float = 0.0,
) -> Measurement:
    """
    All the phases of `case`, `repeat` times each (the in-process ones more
    often when the passes of `repeat` of them would take less than
    `at_least` seconds, see `in_process_runs`); with a `baseline` checkout, both passes in
    separate processes here and there (the speedups), and with
    `end_to_end_baseline` also `end_to_end_baseline` (end to end / baseline).
    """
    result = Measurement(case.family, case.parameter)
    watch = _Stopwatch(result)
    _measure_once(case, watch, first=True)
    passes = result.samples["lower"][0] + result.samples["canonicalize"][0]
    runs = in_process_runs(repeat, passes, at_least)
    for _ in range(runs - 1):
        _measure_once(case, watch, first=False)
    _measure_end_to_end(
        case.text, watch, repeat, baseline if end_to_end_baseline else None
    )
    if baseline is not None:
        _measure_against_baseline(case.text, result, repeat, baseline)
    return result
