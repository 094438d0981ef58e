"""
Our two passes with the door's fast paths and with xDSL's public API
(`PYPTO_XDSL_PUBLIC=1`, `pypto_dialect.xdsl_internals`), on the 13 programs
of `python -m bench pypto-compare` (no PyPTO needed).

    python -m bench door-modes [--repeat N] [--rounds R] [--baseline CHECKOUT]

Each mode runs in a process of its own (the door chooses at import), the
modes alternating, `--rounds` times; each process takes
`bench.pypto_compare.our_medians` (`--repeat` runs after an untimed one,
a full collection before each) and a program's time is the least over the
rounds of its medians (lowering plus canonicalization): on a shared machine,
the run least disturbed. `--baseline`
adds the fast mode of another checkout (its `bench` and passes), for
"no slower than before". Prints a Markdown table in milliseconds, each mode
over the fast mode, and the geometric means of those ratios.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from bench import command_line
from pypto_dialect.xdsl_internals import PUBLIC_ENV

ROOT = Path(__file__).resolve().parents[1]

_CHILD = """\
import json, sys
from bench.pypto_compare import our_medians, programs
repeat = int(sys.argv[1])
print(json.dumps([
    (p.name, sum(our_medians(p, repeat).get(k, 0.0) for k in ("lower", "canonicalize")))
    for p in programs()
]))
"""
"""Print each program's name and the sum of our two medians, as JSON."""


def _run(checkout: Path, public: bool, repeat: int) -> list[tuple[str, float]]:
    """Our time per program, in a fresh process of `checkout` in one mode."""
    env = {k: v for k, v in os.environ.items() if k != PUBLIC_ENV}
    env["PYTHONPATH"] = str(checkout)
    if public:
        env[PUBLIC_ENV] = "1"
    finished = subprocess.run(
        [sys.executable, "-c", _CHILD, str(repeat)],
        cwd=checkout,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [(name, float(seconds)) for name, seconds in json.loads(finished.stdout)]


def table(names: Sequence[str], modes: dict[str, list[float]]) -> str:
    """The Markdown table: seconds per mode and program, over the first mode."""
    first, *others = modes
    header = f"| program | {first} (ms) |" + "".join(
        f" {m} (ms) | {m} / {first} |" for m in others
    )
    lines = [header, "|---" * header.count(" |") + "|"]
    for index, name in enumerate(names):
        base = modes[first][index]
        cells = [name, f"{base * 1e3:.1f}"]
        for mode in others:
            time = modes[mode][index]
            cells += [f"{time * 1e3:.1f}", f"{time / base:.2f}"]
        lines.append("| " + " | ".join(cells) + " |")
    for mode in others:
        ratios = [t / b for t, b in zip(modes[mode], modes[first], strict=True)]
        lines.append(
            f"\n{mode} / {first}, geometric mean: {statistics.geometric_mean(ratios):.2f}"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line("door-modes", __doc__)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs per process")
    parser.add_argument("--rounds", type=int, default=2, help="processes per mode")
    parser.add_argument(
        "--baseline", type=Path, help="another checkout, in its fast mode"
    )
    args = parser.parse_args(argv)
    configs = {"fast": (ROOT, False), "public": (ROOT, True)}
    if args.baseline is not None:
        configs["baseline"] = (args.baseline.resolve(), False)
    samples: dict[str, list[list[float]]] = {mode: [] for mode in configs}
    names: list[str] = []
    for _ in range(args.rounds):
        for mode, (checkout, public) in configs.items():
            measured = _run(checkout, public, args.repeat)
            names = [name for name, _ in measured]
            samples[mode].append([seconds for _, seconds in measured])
    modes = {
        mode: [min(column) for column in zip(*runs, strict=True)]
        for mode, runs in samples.items()
    }
    print(table(names, modes))
