"""How often `bench.measure` runs a case in process."""

from __future__ import annotations

import pytest

from bench.cases import Case, nested_module
from bench.measure import MORE_RUNS_AT_MOST, in_process_runs, measure


@pytest.mark.parametrize(
    ("passes", "runs"),
    [
        (1.0, 5),  # long enough: `repeat`
        (0.1, 5),  # 5 runs last 0.5 s
        (0.05, 10),  # twice as many make 0.5 s
        (0.03, 20),  # ceil(0.5 / 0.15) = 4 times
        (0.001, 5 * MORE_RUNS_AT_MOST),  # bounded
    ],
)
def test_short_cases_are_run_more_often(passes: float, runs: int):
    assert in_process_runs(5, passes, at_least=0.5) == runs


def test_without_a_least_duration_repeat_is_kept():
    assert in_process_runs(1, 0.001, at_least=0.0) == 1
    assert in_process_runs(3, 0.0, at_least=0.5) == 3


@pytest.mark.slow
def test_measure_runs_a_short_case_more_often():
    """The passes of the smallest `nesting` case take milliseconds, not 10 s."""
    case = Case("nesting", 2, nested_module(2, 2))
    once = measure(case, 1)
    more = measure(case, 1, at_least=10.0)
    assert len(once.samples["lower"]) == 1
    assert len(more.samples["lower"]) == len(more.samples["canonicalize"])
    assert len(more.samples["lower"]) == MORE_RUNS_AT_MOST
    assert len(more.samples["end_to_end"]) == 1  # `repeat` out of process
