"""How often `bench.measure` runs a case in process."""

from __future__ import annotations

import pytest

from bench.measure import MORE_RUNS_AT_MOST, in_process_runs


@pytest.mark.parametrize(
    ("first_run", "runs"),
    [
        (1.0, 5),  # long enough: `repeat`
        (0.1, 5),  # 5 runs last 0.5 s
        (0.05, 10),  # twice as many make 0.5 s
        (0.03, 20),  # ceil(0.5 / 0.15) = 4 times
        (0.001, 5 * MORE_RUNS_AT_MOST),  # bounded
    ],
)
def test_short_cases_are_run_more_often(first_run: float, runs: int):
    assert in_process_runs(5, first_run, at_least=0.5) == runs


def test_without_a_least_duration_repeat_is_kept():
    assert in_process_runs(1, 0.001, at_least=0.0) == 1
    assert in_process_runs(3, 0.0, at_least=0.5) == 3
