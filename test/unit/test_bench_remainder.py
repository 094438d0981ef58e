"""`python -m bench remainder`: a real run at small F, its table and picture (nothing timed against a bound)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bench.remainder import main, run, table
from passes.schedule.defaults import STRATEGIES


@pytest.mark.slow
def test_loop_emits_fewer_ops_than_the_cascade_from_f_3_and_slots_one_body():
    rows = run([2, 3, 8], repeat=1)
    assert [row.stages for row in rows] == [2, 3, 8]
    assert {name for name, _ in STRATEGIES} <= set(rows[0].figures)
    for row in rows:
        cascade, loop = row.figures["cascade"][0], row.figures["loop"][0]
        # F = 2: the cascade's one branch and the loop hold one copy each
        assert loop < cascade if row.stages > 2 else loop <= cascade
    # Slots keep one body whatever F (within the gate's [2, 16]).
    assert len({row.figures["slots"][0] for row in rows}) == 1
    assert rows[0].figures["slots"][0] < rows[0].figures["loop"][0]
    lines = table(rows).splitlines()
    assert lines[0] == (
        "| F | cascade ops | cascade ms | loop ops | loop ms | slots ops | slots ms |"
    )
    assert lines[2].startswith("| 2 | ")


@pytest.mark.slow
def test_main_writes_json_and_picture(tmp_path: Path):
    json_path, picture = tmp_path / "rows.json", tmp_path / "remainder.svg"
    main(
        [
            "--stages",
            "2",
            "--repeat",
            "1",
            "--json",
            str(json_path),
            "--plot",
            str(picture),
        ]
    )
    assert '"stages": 2' in json_path.read_text()
    assert picture.read_text().startswith("<?xml")
