"""
Both passes side by side with PyPTO's C++ passes (`LowerPipelineLoops`,
`CanonicalizeIOOrder`, through PyPTO's Python API) on the same programs.

    python -m bench pypto-compare [--pypto-python PATH] [--repeat N] [--warm]
        [--floor] [--json FILE] [--plot FILE]

Each program is a module of `bench.cases` (`items_module`: static and
dynamic bounds, F = 2 to 64) and its PyPTO text, printed by our target
(`-t pypto`). Our passes run in this process; PyPTO's in a process of the
interpreter at `--pypto-python` or `$PYPTO_PYTHON` (one that can `import pypto`), which parses
the text with `pypto.language.parse` and times each pass on it. Both sides
take `--repeat` runs after an untimed one, each on a fresh parse: a full
collection, then the lowering and canonicalization timed one after the
other, as a pipeline runs them (`--warm`: no collection, so that the
lowering does not start on the cold caches a collection leaves), and
report medians. Prints a Markdown table (milliseconds, ours over PyPTO's
per pass and for both together) and the geometric means against the
targets. Our lowering's time includes the cyclic collector's
scan of the objects it made (paused during the pass, it runs on the way
out): the table also gives the lowering without it. `--floor` adds
`bench.floor`'s floor of each lowering (its output ops made by
`Operation.create` alone, after a collection) over PyPTO's lowering.
`--json` keeps the medians; `--plot` draws the ratios against the output's
size (`bench.pypto_compare_plot`). When that interpreter cannot import
`pypto`, prints why and exits with status 0 (nothing is measured).
"""

from __future__ import annotations

import gc
import json
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from types import TracebackType

from bench import PYPTO_PYTHON, add_pypto_python, command_line
from bench.cases import MAX_COPIES, Case, items_module, lowered_size, parse
from bench.floor import created_ops, floor_time, specs
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl.target import print_pypto

PASSES = ("lower", "canonicalize")
NET = "lower less collection"
"""
The key of our medians for the lowering's call less the collections within
it (the collector's scan of the objects it made, on the way out).
"""

TARGETS = {"lower": (1.5, 3.0), "both": (1.0, None)}
"""The targets: the geometric mean of ours / PyPTO's at most the first number,
no program above the second."""

"""The environment variable naming PyPTO's interpreter when `--pypto-python` is not given."""

CHILD_PREAMBLE = """
import gc, json, statistics, sys, time
try:
    import pypto.language as pl
    from pypto import passes
except Exception as error:  # any failure to import: nothing to measure
    print(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}))
    sys.exit(0)
paths, repeat = json.loads(sys.argv[1]), int(sys.argv[2])
collect = sys.argv[3] == "collect"
medians = []
"""
"""
The start of a script for PyPTO's interpreter (`pypto_medians`): PyPTO
imported (or why not), the arguments read, `medians` to fill and print.
"""

_CHILD = (
    CHILD_PREAMBLE
    + """
for path in paths:
    text = open(path).read()
    samples = {"lower": [], "canonicalize": []}
    for run in range(repeat + 1):
        program = pl.parse(text)
        if collect:
            gc.collect()
        start = time.perf_counter()
        lowered = passes.lower_pipeline_loops()(program)
        middle = time.perf_counter()
        passes.canonicalize_io_order()(lowered)
        end = time.perf_counter()
        if run:
            samples["lower"].append(middle - start)
            samples["canonicalize"].append(end - middle)
    medians.append({k: statistics.median(v) for k, v in samples.items()})
print(json.dumps({"medians": medians}))
"""
)
"""PyPTO's side, run by `--pypto-python`: the medians of both passes per program."""


@dataclass(frozen=True)
class Program:
    """One program of the comparison: our module and its PyPTO text."""

    name: str
    mlir: str

    @property
    def pypto_text(self) -> str:
        stream = StringIO()
        print_pypto(parse(pypto_context(), self.mlir), stream)
        return stream.getvalue()


def programs() -> list[Program]:
    """
    The 13 programs: one item (4 ops) per body, static (2F-1 iterations)
    and dynamic bounds for F = 2 to 64, and the largest, 4 items with a
    dynamic bound and F = 64 (about 35k ops after lowering).
    """
    found: list[Program] = []
    for stages in (2, 4, 8, 16, 32, 64):
        found.append(
            Program(f"static F={stages}", items_module(1, stages, 2 * stages - 1))
        )
        found.append(Program(f"dynamic F={stages}", items_module(1, stages, None)))
    found.append(Program("dynamic F=64, 4 items", items_module(4, 64, None)))
    return found


class CollectionClock:
    """The seconds CPython's cyclic collector ran while entered (`gc.callbacks`)."""

    def __init__(self) -> None:
        self.seconds = 0.0
        self._started = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        now = time.perf_counter()
        if phase == "start":
            self._started = now
        else:
            self.seconds += now - self._started

    def __enter__(self) -> CollectionClock:
        gc.callbacks.append(self)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        gc.callbacks.remove(self)


def our_medians(
    program: Program, repeat: int, *, collect: bool = True
) -> dict[str, float]:
    """
    The medians of our two passes on `program`, run one after the other on
    each fresh parse, after a full collection if `collect` (as PyPTO's side),
    and of the lowering less the collections within its call (`NET`).
    """
    ctx = pypto_context()
    lower = LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    canonicalize = CanonicalizeIOOrderPass()
    samples: dict[str, list[float]] = {name: [] for name in (*PASSES, NET)}
    for run in range(repeat + 1):
        module = parse(ctx, program.mlir)
        if collect:
            gc.collect()
        with CollectionClock() as clock:
            start = time.perf_counter()
            lower.apply(ctx, module)
            middle = time.perf_counter()
            collected = clock.seconds
            canonicalize.apply(ctx, module)
            end = time.perf_counter()
        if run:
            samples["lower"].append(middle - start)
            samples["canonicalize"].append(end - middle)
            samples[NET].append(middle - start - collected)
    return {name: statistics.median(values) for name, values in samples.items()}


def floor_median(program: Program, repeat: int) -> float:
    """
    The median of `bench.floor`'s floor for `program`'s lowering: its
    created ops made by `Operation.create` alone, after a full collection.
    """
    ctx = pypto_context()
    lower = LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    made = specs(created_ops(ctx, parse(ctx, program.mlir), lower))
    return statistics.median(floor_time(made) for _ in range(repeat))


def pypto_medians(
    python: Path,
    texts: Sequence[Path],
    repeat: int,
    *,
    collect: bool = True,
    child: str = _CHILD,
) -> list[dict[str, float]] | str:
    """
    PyPTO's medians per program, each pair of calls after a full collection
    if `collect`, or why they cannot be measured. `child` is the script the
    interpreter runs (its arguments: the texts' paths as JSON, `repeat`,
    `collect` or `warm`; it prints `{"medians": [...]}` or `{"unavailable": why}`).
    """
    if not python.exists():
        return f"{python} does not exist"
    done = subprocess.run(
        [
            str(python),
            "-c",
            child,
            json.dumps([str(t) for t in texts]),
            str(repeat),
            "collect" if collect else "warm",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    if done.returncode:
        return f"{python} failed:\n{done.stderr[-2000:]}"
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    if "unavailable" in answer:
        return f"{python} cannot import pypto ({answer['unavailable']})"
    return answer["medians"]


def geomean(values: Sequence[float]) -> float:
    return statistics.geometric_mean(values)


def report(
    names: Sequence[str],
    sizes: Sequence[int],
    ours: Sequence[dict[str, float]],
    theirs: Sequence[dict[str, float]],
    floors: Sequence[float] = (),
) -> str:
    """
    The table and the geometric means, in Markdown. Where `ours` has `NET`,
    two more columns: the lowering less its collections, and that over
    PyPTO's lowering. With `floors` (seconds per program, `floor_median`),
    two more: the floor, and the floor over PyPTO's lowering.
    """
    net = bool(ours) and NET in ours[0]
    header = (
        "| program | ops out | lower (ms) | PyPTO | ratio | canonicalize (ms) "
        "| PyPTO | ratio | both, ratio |"
    )
    header += " lower less collection (ms) | ratio |" if net else ""
    header += " create floor (ms) | floor / PyPTO's lower |" if floors else ""
    lines = [header, "|---" * header.count(" |") + "|"]
    ratios: dict[str, list[float]] = {"lower": [], "canonicalize": [], "both": []}
    if net:
        ratios[NET] = []
    for index, (name, size, mine, other) in enumerate(
        zip(names, sizes, ours, theirs, strict=True)
    ):
        row = [name, f"{size:,}"]
        for pass_name in PASSES:
            ratio = mine[pass_name] / other[pass_name]
            ratios[pass_name].append(ratio)
            row += [
                f"{mine[pass_name] * 1e3:.2f}",
                f"{other[pass_name] * 1e3:.2f}",
                f"{ratio:.2f}",
            ]
        both = sum(mine[p] for p in PASSES) / sum(other[p] for p in PASSES)
        ratios["both"].append(both)
        row.append(f"{both:.2f}")
        if net:
            ratios[NET].append(mine[NET] / other["lower"])
            row += [f"{mine[NET] * 1e3:.2f}", f"{ratios[NET][-1]:.2f}"]
        if floors:
            floor = floors[index]
            row += [f"{floor * 1e3:.2f}", f"{floor / other['lower']:.2f}"]
        lines.append("| " + " | ".join(row) + " |")
    lines.append("")
    for what, values in ratios.items():
        line = f"{what}: geomean {geomean(values):.2f}, worst {max(values):.2f}"
        if what in TARGETS:
            mean_limit, worst_limit = TARGETS[what]
            met = geomean(values) <= mean_limit and (
                worst_limit is None or max(values) <= worst_limit
            )
            worst = "" if worst_limit is None else f", none above {worst_limit}"
            line += f" (target: geomean <= {mean_limit}{worst}: {'met' if met else 'not met'})"
        lines.append(line)
    if floors:
        over = [
            floor / other["lower"] for floor, other in zip(floors, theirs, strict=True)
        ]
        lines.append(
            f"create floor over PyPTO's lowering: geomean {geomean(over):.2f}, "
            f"worst {max(over):.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "pypto-compare",
        "Both passes against PyPTO's C++ passes, same programs, same run.",
    )
    add_pypto_python(parser)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per pass")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="no full collection before each timed lowering (both sides)",
    )
    parser.add_argument(
        "--floor",
        action="store_true",
        help="also time bench.floor's floor of each lowering (Operation.create alone)",
    )
    parser.add_argument(
        "--json", type=Path, help="write the medians of every program to this file"
    )
    parser.add_argument(
        "--plot",
        type=Path,
        help="draw the ratios against the output's size (as python -m bench pypto-compare-plot)",
    )
    args = parser.parse_args(argv)
    if args.pypto_python is None:
        parser.error(
            f"name PyPTO's interpreter: --pypto-python PATH or ${PYPTO_PYTHON}"
        )
    collect = not args.warm
    chosen = programs()
    with tempfile.TemporaryDirectory() as directory:
        texts = [Path(directory) / f"{k}.py" for k in range(len(chosen))]
        for program, path in zip(chosen, texts, strict=True):
            path.write_text(program.pypto_text)
        theirs = pypto_medians(args.pypto_python, texts, args.repeat, collect=collect)
    if isinstance(theirs, str):
        print(f"skipped: {theirs}")
        return
    ours = [our_medians(p, args.repeat, collect=collect) for p in chosen]
    sizes = [lowered_size(Case(p.name, 0, p.mlir)) for p in chosen]
    floors = [floor_median(p, args.repeat) for p in chosen] if args.floor else []
    print(report([p.name for p in chosen], sizes, ours, theirs, floors))
    rows = [
        {"name": p.name, "ops_out": size, "ours": mine, "theirs": other}
        for p, size, mine, other in zip(chosen, sizes, ours, theirs, strict=True)
    ]
    if args.json:
        args.json.write_text(json.dumps({"programs": rows}, indent=1) + "\n")
    if args.plot:
        # matplotlib, loaded only for the picture.
        from bench.pypto_compare_plot import plot_comparison  # noqa: PLC0415

        plot_comparison(rows, args.plot)
