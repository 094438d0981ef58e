"""
The benchmarks' one command line: `python -m bench NAME [options]`.

`python -m bench` (or `--list`) lists the names; `python -m bench NAME --help`
gives a benchmark's options.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Sequence

BENCHMARKS = {
    "suite": ("suite", "both passes on every family of cases, against the targets"),
    "plot": ("plot", "draw a run of `suite` (time per output op, per family)"),
    "floor": ("floor", "the lowering per created op against unrolling and a floor"),
    "pass-call": ("pass_call", "what one pass call costs on the smallest programs"),
    "startup": ("startup", "start-up time of the tools against stock xdsl-opt"),
    "instructions": ("instructions", "instructions per pass, counted by callgrind"),
    "dialect-io": ("dialect_io", "parse and print cost of every pypto op and type"),
    "orders": ("orders", "the orders of canonicalize-io-order on the schedule model"),
    "orders-plot": ("orders_plot", "draw a saved run of `orders`"),
    "budgets": ("budgets", "order=modelled against its search budget"),
    "model-floor": ("model_floor", "where order=modelled spends its time"),
    "remainder": ("remainder", "the remainder strategies against F"),
    "pypto-compare": ("pypto_compare", "both passes against PyPTO's C++ passes"),
    "pypto-compare-plot": ("pypto_compare_plot", "draw a saved run of `pypto-compare`"),
    "pypto-end-to-end": (
        "pypto_end_to_end",
        "PyPTO text in, both passes, PyPTO text out, against PyPTO",
    ),
    "door-modes": (
        "door_modes",
        "both passes with the door's fast paths and public twins",
    ),
    "print-scaling": (
        "print_scaling",
        "the PyPTO printer against xDSL's, per op, as it grows",
    ),
}
"""Each benchmark's name: its module in `bench` and what it measures."""


def listing() -> str:
    """The names, one line each."""
    width = max(map(len, BENCHMARKS))
    lines = [
        "usage: python -m bench NAME [options]   (NAME --help for its options)",
        "",
    ]
    lines += [f"  {name:<{width}}  {what}" for name, (_, what) in BENCHMARKS.items()]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark `argv[0]` with the rest of `argv`; list them without one."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("--list", "-h", "--help"):
        print(listing())
        return 0
    name, *rest = args
    if name not in BENCHMARKS:
        print(f"python -m bench: no benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    module = importlib.import_module(f"bench.{BENCHMARKS[name][0]}")
    run: Callable[[list[str]], None] = module.main
    run(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main())
