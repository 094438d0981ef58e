"""`bench.pass_call`: the table of one call per pass and program, and the profile."""

from __future__ import annotations

import pytest

from bench import pass_call


def test_the_table_has_a_row_per_pass_and_two_columns_per_program(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pass_call.main(["--calls", "3"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].count("(us)") == 2 * len(pass_call.PROGRAMS)
    rows = [line.strip("|").split("|") for line in lines[2:]]
    assert [row[0].strip() for row in rows] == list(pass_call.PASSES)
    assert all(float(cell) > 0 for row in rows for cell in row[1:])


def test_a_call_on_add_one_costs_more_than_on_an_empty_function() -> None:
    ctx = pass_call.pypto_context()
    empty, add_one = (
        pass_call.median_call(ctx, "lower", text, 5, collect=False)
        for text in pass_call.PROGRAMS.values()
    )
    assert add_one > empty


def test_the_profile_names_the_pass_by_own_time(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pass_call.main(["--calls", "3", "--profile", "lower", "--top", "40"])
    out = capsys.readouterr().out
    assert "Ordered by: internal time" in out
    assert "lower_pipeline_loops.py" in out
