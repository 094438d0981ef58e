"""
The two passes timed on one module, in a process of their own, for comparing
checkouts (the speedups): run as a script with a checkout's root on
`PYTHONPATH`, it imports `passes` and `pypto_dialect` from there and nothing
from `bench`, so any revision with the two passes can be measured.

    PYTHONPATH=CHECKOUT python bench/pass_times.py INPUT.mlir RUNS MAX_COPIES

prints `{"lower": [seconds, ...], "canonicalize": [...]}`: RUNS timed runs
after an untimed one, each on a fresh parse, after a full collection.
"""

from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

from xdsl.parser import Parser

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context


def main(path: str, runs: int, max_copies: int) -> None:
    """Print the samples of both passes on the module at `path`."""
    ctx = pypto_context()
    text = Path(path).read_text()
    samples: dict[str, list[float]] = {"lower": [], "canonicalize": []}
    for run in range(runs + 1):
        module = Parser(ctx, text).parse_module()
        for phase, apply in (
            ("lower", LowerPipelineLoopsPass(max_copies=max_copies).apply),
            ("canonicalize", CanonicalizeIOOrderPass().apply),
        ):
            gc.collect()
            start = time.perf_counter()
            apply(ctx, module)
            if run:
                samples[phase].append(time.perf_counter() - start)
    print(json.dumps(samples))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
