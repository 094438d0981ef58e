"""
`print_pypto` against xDSL's MLIR printer as the module grows, in one process.

    python -m bench.print_scaling [--items N ...] [--repeat N]

Each module is `items_module(items, 64, 127)` lowered and canonicalized
(2 items: 1,341 ops, 128 items: 65,349 ops); both printers print it after
a full collection, alternately, and the medians give microseconds per op,
the ratio of the two, and each printer's time per op over that of the
smallest module (linear printing keeps it near 1).
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Callable, Sequence
from io import StringIO

from xdsl.dialects.builtin import ModuleOp
from xdsl.printer import Printer

from bench import command_line
from bench.cases import MAX_COPIES, count_ops, items_module, parse
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl.target import print_pypto


def _mlir(module: ModuleOp) -> None:
    Printer(StringIO()).print_op(module)


def _pypto(module: ModuleOp) -> None:
    print_pypto(module, StringIO())


PRINTERS: dict[str, Callable[[ModuleOp], None]] = {"pypto": _pypto, "mlir": _mlir}


def per_op(items: int, repeat: int) -> tuple[int, dict[str, float]]:
    """The ops of the module of `items` and each printer's median seconds per op."""
    ctx = pypto_context()
    module = parse(ctx, items_module(items, 64, 127))
    LowerPipelineLoopsPass(max_copies=MAX_COPIES).apply(ctx, module)
    CanonicalizeIOOrderPass().apply(ctx, module)
    ops = count_ops(module)
    samples: dict[str, list[float]] = {name: [] for name in PRINTERS}
    for _ in range(repeat):
        for name, printer in PRINTERS.items():
            gc.collect()
            start = time.perf_counter()
            printer(module)
            samples[name].append(time.perf_counter() - start)
    return ops, {name: statistics.median(s) / ops for name, s in samples.items()}


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "print-scaling", "print_pypto against xDSL's MLIR printer as the module grows."
    )
    parser.add_argument("--items", type=int, nargs="+", default=[2, 128])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    print(
        "| items | ops | pypto (us/op) | MLIR (us/op) | pypto / MLIR | pypto growth | MLIR growth |"
    )
    print("|---|---|---|---|---|---|---|")
    first: dict[str, float] = {}
    for items in args.items:
        ops, seconds = per_op(items, args.repeat)
        first = first or seconds
        print(
            f"| {items} | {ops:,} | {seconds['pypto'] * 1e6:.1f} "
            f"| {seconds['mlir'] * 1e6:.1f} | {seconds['pypto'] / seconds['mlir']:.2f} "
            f"| {seconds['pypto'] / first['pypto']:.2f} "
            f"| {seconds['mlir'] / first['mlir']:.2f} |"
        )
