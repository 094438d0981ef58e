"""
`python -m bench` lists its benchmarks; `python -m bench suite` runs once at
its smallest size and writes its reports.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).parents[2]
FAMILIES = {
    "loops",
    "unroll",
    "stores-disjoint",
    "stores-same",
    "stores-in-place",
    "stages-static",
    "stages-dynamic",
    "nesting",
}
PHASES = {
    "parse",
    "lower",
    "canonicalize",
    "slots",
    "print",
    "parse_output",
    "end_to_end",
}


def _table(markdown: str, header: str) -> list[list[str]]:
    """The rows (cells) of the table that starts with `header`, separator excluded."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows: list[list[str]] = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return [rows[0], *rows[2:]]


def _smoke_run(out: Path, *options: str) -> dict[str, Any]:
    """`python -m bench suite --smoke` with `options`; its `results.json`."""
    command = [
        sys.executable,
        "-m",
        "bench",
        "suite",
        "--smoke",
        *options,
        "--out",
        str(out),
    ]
    subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
    return json.loads((out / "results.json").read_text())


def test_smoke_run_writes_json_and_markdown(tmp_path: Path):
    report = _smoke_run(tmp_path, "--stages", "4")
    cases = report["cases"]
    assert sorted(case["family"] for case in cases) == sorted(FAMILIES)
    for case in cases:
        assert case["ops_out"] > case["ops_in"] > 0
        assert case["created_by_lowering"] > 0
        assert set(case["medians"]) >= PHASES
        assert all(seconds > 0 for seconds in case["medians"].values())
        assert case["passes_over_io"] > 0
    stages = {
        case["parameter"] for case in cases if case["family"].startswith("stages")
    }
    assert stages == {4}
    (unroll,) = (case for case in cases if case["family"] == "unroll")
    assert unroll["created_by_unroll"] > 0
    assert unroll["lower_over_unroll"] > 0
    # One size per family: no exponent can be fitted.
    assert all(
        exponent is None
        for phases in report["exponents"].values()
        for exponent in phases.values()
    )
    # Without --baseline there is no end to end / baseline; an exponent needs
    # two sizes.
    assert {check["target"].split(":")[0] for check in report["targets"]} == {
        "passes/io",
        "lower/unroll",
        "lower/unroll tight",
        "canonicalize/lower",
        "slots/lower",
    }
    assert all(case["canonicalize_over_lower"] > 0 for case in cases)
    assert all(case["slots_over_lower"] > 0 for case in cases)

    markdown = (tmp_path / "results.md").read_text()
    header, *rows = _table(markdown, "| family | param | ops in |")
    assert [row[0] for row in rows] == [case["family"] for case in cases]
    assert all(len(row) == len(header) for row in rows)


def test_baseline_run_gives_end_to_end_and_speedups(tmp_path: Path):
    """`--baseline` (here the checkout itself): end to end on loops, speedups on all."""
    report = _smoke_run(
        tmp_path, "--families", "loops", "nesting", "--baseline", str(ROOT)
    )
    for case in report["cases"]:
        assert set(case["speedups"]) == {"lower", "canonicalize"}
        assert all(speedup > 0 for speedup in case["speedups"].values())
    (loops,) = (case for case in report["cases"] if case["family"] == "loops")
    assert loops["medians"]["end_to_end_baseline"] > 0
    targets = [check["target"] for check in report["targets"]]
    assert sum(target.startswith("end-to-end/baseline:") for target in targets) == 1
    assert (
        sum(target.startswith("speedup:") for target in targets) == 4
    )  # 2 families x 2 passes
