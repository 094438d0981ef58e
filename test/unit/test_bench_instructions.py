"""`python -m bench instructions`: its parts, and one real count where valgrind is."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from bench.cases import Scale
from bench.instructions import Run, collected, count, largest_cases, table

ROOT = Path(__file__).parents[2]


def test_collected_reads_callgrinds_total():
    stderr = "==12== Callgrind, a call-graph generating cache profiler\n==12== Collected : 357569144\n==12== I   refs:      357,569,144\n"
    assert collected(stderr) == 357_569_144


@pytest.mark.parametrize("stderr", ["", "==12== Collected : 0\n"])
def test_collected_refuses_a_run_that_counted_nothing(stderr: str):
    with pytest.raises(RuntimeError, match="callgrind counted nothing"):
        collected(stderr)


def test_largest_cases_take_the_largest_parameter_of_each_family():
    cases = largest_cases(Scale([1_000], [8, 4]), ["nesting", "stages-static"])
    assert [(case.family, case.parameter) for case in cases] == [
        ("stages-static", 8),
        ("nesting", 6),
    ]


def test_table_gives_millions_and_the_ratio():
    (case,) = largest_cases(Scale([1_000], [8]), ["stages-static"])
    current, baseline = Path("now"), Path("then")
    counts = {
        Run(case, "lower", current): 10_000_000,
        Run(case, "canonicalize", current): 20_000_000,
        Run(case, "lower", baseline): 25_000_000,
        Run(case, "canonicalize", baseline): 70_000_000,
    }
    assert table([case], counts, current, baseline).splitlines() == [
        "| case | pass | current (M) | baseline (M) | baseline / current |",
        "|---|---|---|---|---|",
        "| stages-static 8 | lower | 10.0 | 25.0 | 2.50 |",
        "| stages-static 8 | canonicalize | 20.0 | 70.0 | 3.50 |",
    ]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="needs valgrind")
def test_a_pass_is_counted_and_only_the_pass(tmp_path: Path):
    (case,) = largest_cases(Scale([1_000], [2]), ["stages-dynamic"])
    module = tmp_path / "case.mlir"
    module.write_text(case.text)
    # One run (about 10 s): the lowering runs first, uncounted. Start-up and
    # parsing alone cost far more than 100M instructions: a count of the
    # whole process would be above that.
    assert 0 < count(Run(case, "canonicalize", ROOT), module) < 100_000_000
