"""
What one pass call costs on the smallest programs (fixed costs).

    python -m bench pass-call [--calls N] [--profile PASS] [--top K]

Each pass is applied N times, each time to a fresh parse after a full
collection (as `bench.pypto_compare` times them), to `examples/add_one.mlir`
(`canonicalize` to its lowered form, which it follows) and to an empty
function, which has nothing to change: what a call costs before it touches
an op. Prints the median microseconds per call in a Markdown table, once
after a full collection (`gc.collect()` walks the whole heap, so the call
starts with cold caches) and once warm (no collection before the call).
`--profile PASS`: the cProfile of N calls of that pass on add_one (fresh
parses, the collector off, so that no collection falls in a call), the
`--top` functions by their own time.
"""

from __future__ import annotations

import cProfile
import gc
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from io import StringIO
from pathlib import Path

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bench import command_line
from bench.cases import parse
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.context import pypto_context

PASSES: dict[str, Callable[[], ModulePass]] = {
    "lower": LowerPipelineLoopsPass,
    "canonicalize": CanonicalizeIOOrderPass,
    "slots": LowerPipelineToSlotsPass,
}

PROGRAMS = {
    "empty function": "func.func @f() {\n  func.return\n}\n",
    "add_one": (Path(__file__).parents[1] / "examples" / "add_one.mlir").read_text(),
}

WHEN = {"collected": True, "warm": False}
"""The columns of each program: a full collection right before the call, or none."""


def prepared(ctx: Context, pass_name: str, text: str) -> ModuleOp:
    """A fresh parse of `text`, lowered first for `canonicalize`."""
    module = parse(ctx, text)
    if pass_name == "canonicalize":
        LowerPipelineLoopsPass().apply(ctx, module)
    return module


def median_call(
    ctx: Context, pass_name: str, text: str, calls: int, *, collect: bool
) -> float:
    """
    The median seconds of one call of `pass_name` on `text` (fresh parses),
    each after a full collection if `collect`.
    """
    samples: list[float] = []
    for _ in range(calls):
        module = prepared(ctx, pass_name, text)
        apply = PASSES[pass_name]().apply
        if collect:
            gc.collect()
        start = time.perf_counter()
        apply(ctx, module)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def profile(ctx: Context, pass_name: str, calls: int, top: int) -> str:
    """The cProfile of `calls` calls of `pass_name` on add_one, by own time."""
    modules = [prepared(ctx, pass_name, PROGRAMS["add_one"]) for _ in range(calls)]
    profiler = cProfile.Profile()
    gc.disable()
    try:
        profiler.enable()
        for module in modules:
            PASSES[pass_name]().apply(ctx, module)
        profiler.disable()
    finally:
        gc.enable()
    stream = StringIO()
    pstats.Stats(profiler, stream=stream).sort_stats("tottime").print_stats(top)
    return stream.getvalue()


def table(ctx: Context, calls: int) -> str:
    """Microseconds per call, a row per pass, columns per program: collected first, warm."""
    lines = [
        "| pass | "
        + " | ".join(f"{name}, {when} (us)" for name in PROGRAMS for when in WHEN)
        + " |",
        "|---" * (len(PROGRAMS) * len(WHEN) + 1) + "|",
    ]
    for pass_name in PASSES:
        cells = [
            f"{median_call(ctx, pass_name, text, calls, collect=collect) * 1e6:.0f}"
            for text in PROGRAMS.values()
            for collect in WHEN.values()
        ]
        lines.append(f"| {pass_name} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "pass-call", "The cost of one pass call on the smallest programs."
    )
    parser.add_argument("--calls", type=int, default=1000, help="calls per pass")
    parser.add_argument(
        "--profile", choices=sorted(PASSES), help="profile this pass on add_one"
    )
    parser.add_argument("--top", type=int, default=25, help="functions profiled")
    args = parser.parse_args(argv)
    ctx = pypto_context()
    if args.profile is not None:
        print(profile(ctx, args.profile, args.calls, args.top))
        return
    print(table(ctx, args.calls))
