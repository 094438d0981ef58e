"""The reports of a run: `results.json` (everything) and `results.md` (tables)."""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from importlib.metadata import version
from pathlib import Path
from typing import Any

from bench.cases import Family
from bench.measure import MORE_RUNS_AT_MOST, PHASES, WITHOUT_GC, Measurement
from bench.targets import (
    FITTED,
    TARGET_SPEEDUPS,
    canonicalize_over_lower,
    checks,
    exponents,
    lower_over_unroll,
    passes_over_io,
    slots_over_lower,
    speedups,
)


def _cpu_model() -> str:
    cpuinfo = Path("/proc/cpuinfo")
    lines = cpuinfo.read_text().splitlines() if cpuinfo.exists() else []
    models = (line.split(":", 1)[1].strip() for line in lines if "model name" in line)
    return next(models, platform.processor() or "unknown")


def machine() -> dict[str, Any]:
    """The machine and its load average now."""
    return {
        "cpu": _cpu_model(),
        "cores": os.cpu_count(),
        "system": platform.platform(),
        "python": platform.python_version(),
        "xdsl": version("xdsl"),
        "load_average": os.getloadavg()[0],
    }


def build_report(
    start: dict[str, Any],
    settings: dict[str, Any],
    families: Sequence[Family],
    results: Sequence[Measurement],
) -> dict[str, Any]:
    """The content of `results.json`; `start` is the `machine()` before measuring."""
    fitted = exponents(results)
    return {
        "machine": start,
        "settings": settings,
        "families": {
            family.name: {"parameter": family.parameter, "module": family.description}
            for family in families
        },
        "exponents": fitted,
        "targets": checks(results, fitted),
        "load_average_end": os.getloadavg()[0],
        "cases": [
            {
                **asdict(m),
                "medians": {phase: m.median(phase) for phase in m.samples},
                "passes_over_io": passes_over_io(m),
                "lower_over_unroll": lower_over_unroll(m),
                "canonicalize_over_lower": canonicalize_over_lower(m),
                "slots_over_lower": slots_over_lower(m),
                "speedups": speedups(m),
            }
            for m in results
        ],
    }


def _row(cells: Iterator[str] | Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _ms(seconds: float) -> str:
    return f"{seconds * 1e3:.1f}"


def _ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


_RATIO_COLUMNS = (
    "passes/io",
    "lower/unroll",
    "canonicalize/lower",
    "speedup lower",
    "speedup canonicalize",
    "slots/lower",
)


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
        f"## Times (ms, median of {report['settings']['repeat']} runs; in process, "
        f"up to {MORE_RUNS_AT_MOST} times as many for a short case)",
        "",
        _row(["family", "param", "ops in", "ops out", *timed, *_RATIO_COLUMNS]),
        _row(["---"] * (len(timed) + 4 + len(_RATIO_COLUMNS))),
    ]
    lines += [
        _row(
            [
                m.family,
                str(m.parameter),
                str(m.ops_in),
                str(m.ops_out),
                *(_ms(m.median(phase)) for phase in timed),
                _ratio(passes_over_io(m)),
                _ratio(lower_over_unroll(m)),
                _ratio(canonicalize_over_lower(m)),
                *(
                    _ratio(None if (s := speedups(m)) is None else s[name])
                    for name in TARGET_SPEEDUPS
                ),
                _ratio(slots_over_lower(m)),
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


def write(out: Path, report: dict[str, Any], results: Sequence[Measurement]) -> str:
    """Write `results.json` and `results.md` into `out`; return the Markdown."""
    out.mkdir(parents=True, exist_ok=True)
    Path(out, "results.json").write_text(json.dumps(report, indent=2) + "\n")
    table = markdown(report, results)
    Path(out, "results.md").write_text(table)
    return table
