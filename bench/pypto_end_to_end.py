"""
What a user waits for: PyPTO text in, both passes, PyPTO text out, against
PyPTO on the same programs.

    python -m bench.pypto_end_to_end [--pypto-python PATH] [--repeat N]
        [--first N] [--large] [--json FILE]

The programs are those of `bench.pypto_compare` (`--large` adds five with
more items per body), as PyPTO text printed by our target. Ours, in this process:
`parse_pypto`, `lower-pipeline-loops`, `canonicalize-io-order`,
`print_pypto` (the `xdsl-opt -f pypto -p ... -t pypto` path), and beside
them xDSL's MLIR parser and verifier on the same input module (what
`-f mlir` does) and xDSL's MLIR printer on the same output module (our
printer timed again in its conditions, after a full collection). PyPTO's,
in a process of the interpreter at `--pypto-python` (default: the
environment variable `PYPTO_PYTHON`): `pypto.language.parse`, its two
passes, `pypto.ir.python_print`. Each run starts after a full collection;
medians of `--repeat` runs after an untimed one. Without that interpreter,
or when it cannot import `pypto`, only our side is measured (the reason is
printed). Prints a Markdown table (milliseconds) and the geometric means
against issue 41's targets.
"""

from __future__ import annotations

import gc
import json
import statistics
import tempfile
import time
from collections.abc import Sequence
from io import StringIO
from pathlib import Path

from xdsl.parser import Parser
from xdsl.printer import Printer

from bench import add_pypto_python, command_line
from bench.cases import MAX_COPIES, Case, items_module, lowered_size
from bench.pypto_compare import (
    CHILD_PREAMBLE,
    Program,
    geomean,
    programs,
    pypto_medians,
)
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl.frontend import parse_pypto
from pypto_dialect.dsl.target import print_pypto

STAGES = ("parse", "passes", "print", "total")
"""What each side times per run: the text read, both passes, the text written."""

BASELINES = ("mlir parse", "mlir print", "print collected")
"""
Beside the stages: xDSL's MLIR parser (with the verifier) and printer on
the same modules, and our printer again under the MLIR printer's
conditions (after a full collection; `print` runs after the passes, as a
user's does, and may pay a collection of what they left).
"""

TARGET_GEOMEAN, TARGET_WORST = 1.0, 2.0
"""Issue 41: ours over PyPTO's end to end, geomean and worst program."""

CHILD = (
    CHILD_PREAMBLE
    + """
from pypto import ir
for path in paths:
    text = open(path).read()
    samples = {"parse": [], "passes": [], "print": [], "total": []}
    for run in range(repeat + 1):
        if collect:
            gc.collect()
        start = time.perf_counter()
        program = pl.parse(text)
        parsed = time.perf_counter()
        program = passes.canonicalize_io_order()(passes.lower_pipeline_loops()(program))
        passed = time.perf_counter()
        ir.python_print(program)
        end = time.perf_counter()
        if run:
            samples["parse"].append(parsed - start)
            samples["passes"].append(passed - parsed)
            samples["print"].append(end - passed)
            samples["total"].append(end - start)
    medians.append({k: statistics.median(v) for k, v in samples.items()})
print(json.dumps({"medians": medians}))
"""
)
"""PyPTO's side, run by `--pypto-python`: the medians of each stage per program."""


def large_programs() -> list[Program]:
    """
    Five programs with more items per body (static bounds: 2F-1
    iterations), up to 65,541 ops after lowering (static F=64, 128 items).
    """
    return [
        Program(
            f"static F={stages}, {items} items",
            items_module(items, stages, 2 * stages - 1),
        )
        for items, stages in ((16, 2), (128, 8), (16, 64), (128, 64))
    ] + [Program("dynamic F=16, 16 items", items_module(16, 16, None))]


def our_medians(program: Program, repeat: int) -> dict[str, float]:
    """
    The medians of each of our stages on `program` (`STAGES`), and of
    xDSL's MLIR parser and printer on the same modules (`BASELINES`).
    """
    ctx = pypto_context()
    text = program.pypto_text
    lower = LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    canonicalize = CanonicalizeIOOrderPass()
    samples: dict[str, list[float]] = {name: [] for name in (*STAGES, *BASELINES)}
    for run in range(repeat + 1):
        gc.collect()
        start = time.perf_counter()
        module = parse_pypto(ctx, text)
        parsed = time.perf_counter()
        lower.apply(ctx, module)
        canonicalize.apply(ctx, module)
        passed = time.perf_counter()
        print_pypto(module, StringIO())
        end = time.perf_counter()
        gc.collect()
        alone = time.perf_counter()
        print_pypto(module, StringIO())
        printed_alone = time.perf_counter()
        gc.collect()
        mlir_start = time.perf_counter()
        Printer(StringIO()).print_op(module)
        mlir_printed = time.perf_counter()
        gc.collect()
        mlir_start_parse = time.perf_counter()
        Parser(ctx, program.mlir).parse_module().verify()
        mlir_parsed = time.perf_counter()
        if not run:
            continue
        for name, seconds in zip(
            (*STAGES, *BASELINES),
            (
                parsed - start,
                passed - parsed,
                end - passed,
                end - start,
                mlir_parsed - mlir_start_parse,
                mlir_printed - mlir_start,
                printed_alone - alone,
            ),
            strict=True,
        ):
            samples[name].append(seconds)
    return {name: statistics.median(values) for name, values in samples.items()}


def _summary(what: str, values: Sequence[float]) -> str:
    return f"{what}: geomean {geomean(values):.2f}, worst {max(values):.2f}"


def report(
    names: Sequence[str],
    sizes: Sequence[int],
    ours: Sequence[dict[str, float]],
    theirs: Sequence[dict[str, float]] | None,
) -> str:
    """
    The table and the geometric means, in Markdown: our stages, our parse
    and print over xDSL's MLIR parser and printer, and, with `theirs`,
    PyPTO's total and ours over it.
    """
    header = "| program | ops out | parse | passes | print | total (ms) |"
    header += " MLIR parse | parse ratio | MLIR print | print ratio |"
    if theirs is not None:
        header += " PyPTO parse | passes | print | PyPTO total (ms) | ours / PyPTO |"
    lines = [header, "|---" * header.count(" |") + "|"]
    parse_ratios = [mine["parse"] / mine["mlir parse"] for mine in ours]
    print_ratios = [mine["print collected"] / mine["mlir print"] for mine in ours]
    totals = [
        mine["total"] / other["total"]
        for mine, other in zip(ours, theirs or [], strict=theirs is not None)
    ]
    for index, (name, size, mine) in enumerate(zip(names, sizes, ours, strict=True)):
        row = [name, f"{size:,}"]
        row += [f"{mine[stage] * 1e3:.1f}" for stage in STAGES]
        row += [f"{mine['mlir parse'] * 1e3:.1f}", f"{parse_ratios[index]:.2f}"]
        row += [f"{mine['mlir print'] * 1e3:.1f}", f"{print_ratios[index]:.2f}"]
        if theirs is not None:
            row += [f"{theirs[index][stage] * 1e3:.1f}" for stage in STAGES]
            row.append(f"{totals[index]:.2f}")
        lines.append("| " + " | ".join(row) + " |")
    lines += ["", _summary("parse_pypto over xDSL's MLIR parser", parse_ratios)]
    lines.append(_summary("print_pypto over xDSL's MLIR printer", print_ratios))
    passes_share = sum(m["passes"] for m in ours) / sum(m["total"] for m in ours)
    lines.append(f"the passes' share of our time, all programs: {passes_share:.0%}")
    if theirs is not None:
        met = geomean(totals) <= TARGET_GEOMEAN and max(totals) <= TARGET_WORST
        lines.append(
            _summary("end to end, ours over PyPTO's", totals)
            + f" (target: geomean <= {TARGET_GEOMEAN}, none above {TARGET_WORST}: "
            + ("met)" if met else "not met)")
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "pypto-end-to-end",
        "PyPTO text in, both passes, PyPTO text out, against PyPTO.",
    )
    add_pypto_python(parser)
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per program")
    parser.add_argument(
        "--first", type=int, help="only the first N programs (for a quick look)"
    )
    parser.add_argument(
        "--large",
        action="store_true",
        help="add five programs with more items (up to 65,541 ops out)",
    )
    parser.add_argument("--json", type=Path, help="write every median to this file")
    args = parser.parse_args(argv)
    chosen = (programs() + (large_programs() if args.large else []))[: args.first]
    theirs: list[dict[str, float]] | None = None
    if args.pypto_python is None:
        print("PyPTO's side skipped: give --pypto-python or set $PYPTO_PYTHON")
    else:
        with tempfile.TemporaryDirectory() as directory:
            texts = [Path(directory) / f"{k}.py" for k in range(len(chosen))]
            for program, path in zip(chosen, texts, strict=True):
                path.write_text(program.pypto_text)
            answer = pypto_medians(args.pypto_python, texts, args.repeat, child=CHILD)
        if isinstance(answer, str):
            print(f"PyPTO's side skipped: {answer}")
        else:
            theirs = answer
    ours = [our_medians(program, args.repeat) for program in chosen]
    sizes = [lowered_size(Case(p.name, 0, p.mlir)) for p in chosen]
    print(report([p.name for p in chosen], sizes, ours, theirs))
    if args.json:
        rows = [
            {"name": p.name, "ops_out": size, "ours": mine}
            | ({} if theirs is None else {"theirs": theirs[index]})
            for index, (p, size, mine) in enumerate(
                zip(chosen, sizes, ours, strict=True)
            )
        ]
        args.json.write_text(json.dumps({"programs": rows}, indent=1) + "\n")
