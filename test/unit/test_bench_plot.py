"""`python -m bench plot` draws a run's `results.json`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from bench.plot import main, per_op_series

PHASES = ("parse_output", "print", "lower", "canonicalize")


def _case(family: str, ops_out: int, seconds: float, **extra: float) -> dict[str, Any]:
    medians = dict.fromkeys(PHASES, seconds) | extra
    return {"family": family, "ops_out": ops_out, "medians": medians}


CASES = [
    _case("loops", 4000, 0.004, lower_baseline=0.012),
    _case("loops", 1000, 0.002, lower_baseline=0.006),
    _case("nesting", 500, 0.001),
]
REPORT: dict[str, Any] = {"families": {"loops": {}, "nesting": {}}, "cases": CASES}


def test_series_are_microseconds_per_op_by_size():
    assert per_op_series(CASES, "loops", "lower") == (
        [1000, 4000],
        [2.0, 1.0],
    )
    assert per_op_series(CASES, "loops", "lower_baseline") == (
        [1000, 4000],
        [6.0, 3.0],
    )
    assert per_op_series(CASES, "nesting", "lower_baseline") == ([], [])


def test_draws_every_family_and_curve(tmp_path: Path):
    results = tmp_path / "results.json"
    results.write_text(json.dumps(REPORT))
    picture = tmp_path / "benchmark.svg"
    main([str(results), "-o", str(picture)])
    svg = picture.read_text()
    for text in (
        "loops",
        "nesting",
        "lower-pipeline-loops",
        "canonicalize-io-order, baseline",
        "parse of the output",
    ):
        assert text in svg


def test_output_is_required(tmp_path: Path):
    with pytest.raises(SystemExit):
        main([str(tmp_path / "results.json")])
