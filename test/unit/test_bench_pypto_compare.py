"""
`bench.pypto_compare`: its programs print as PyPTO text, PyPTO's side runs in
an interpreter of its own (here a stub `pypto` package) or is skipped with a
reason, and the report takes ours over PyPTO's.
"""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest

from bench import pypto_compare, pypto_compare_plot
from bench.pypto_compare import pypto_medians, report

_STUB_LANGUAGE = "def parse(text):\n    return text\n"
_STUB_PASSES = (
    "import time\n"
    "def lower_pipeline_loops():\n"
    "    return lambda program: (time.sleep(0.002), program)[1]\n"
    "def canonicalize_io_order():\n"
    "    return lambda program: program\n"
)


def test_there_are_13_programs_each_with_a_pypto_form():
    programs = pypto_compare.programs()
    assert len(programs) == 13
    assert len({program.name for program in programs}) == 13
    for program in programs:
        assert "pl.pipeline(" in program.pypto_text


def _stub_pypto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, passes: str) -> None:
    """A stub `pypto` package first on the child's path, with `passes` as its passes."""
    package = tmp_path / "stub" / "pypto"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "language.py").write_text(_STUB_LANGUAGE)
    (package / "passes.py").write_text(passes)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "stub"))


def test_pypto_side_runs_in_the_given_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _stub_pypto(tmp_path, monkeypatch, _STUB_PASSES)
    texts = [tmp_path / "a.py", tmp_path / "b.py"]
    for text in texts:
        text.write_text("program")
    medians = pypto_medians(Path(sys.executable), texts, 3)
    assert not isinstance(medians, str), medians
    assert len(medians) == 2
    for median in medians:
        assert median["lower"] >= 0.002 > median["canonicalize"]


_STUB_COLLECTED = (
    "import gc, time\n"
    "collected = []\n"
    "gc.collect = lambda *args: collected.append(True)\n"
    "def lower_pipeline_loops():\n"
    "    def run(program):\n"
    "        time.sleep(0.2 if collected else 0)\n"
    "        collected.clear()\n"
    "        return program\n"
    "    return run\n"
    "def canonicalize_io_order():\n"
    "    return lambda program: program\n"
)
"""A `lower` that sleeps when a collection came before it."""


@pytest.mark.parametrize("collect", [True, False])
def test_warm_runs_take_no_collection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, collect: bool
):
    _stub_pypto(tmp_path, monkeypatch, _STUB_COLLECTED)
    text = tmp_path / "a.py"
    text.write_text("program")
    medians = pypto_medians(Path(sys.executable), [text], 3, collect=collect)
    assert not isinstance(medians, str), medians
    # 0.2 s against none: a busy machine cannot blur the two apart.
    assert (medians[0]["lower"] >= 0.1) == collect


def test_without_pypto_the_comparison_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "does not exist" in str(pypto_medians(tmp_path / "nope", [], 1))
    pypto_compare.main(["--pypto-python", str(tmp_path / "nope"), "--repeat", "1"])
    assert capsys.readouterr().out.startswith("skipped: ")


def test_report_gives_ours_over_pypto_and_checks_the_targets():
    ours = [
        {"lower": 0.002, "canonicalize": 0.001},
        {"lower": 0.008, "canonicalize": 0.001},
    ]
    theirs = [
        {"lower": 0.001, "canonicalize": 0.002},
        {"lower": 0.002, "canonicalize": 0.001},
    ]
    text = report(["a", "b"], [10, 20], ours, theirs)
    rows = [line for line in text.splitlines() if line.startswith(("| a", "| b"))]
    assert rows[0].split(" | ")[4] == "2.00"  # lower: 2 ms / 1 ms
    assert rows[1].split(" | ")[4] == "4.00"
    assert "lower: geomean 2.83, worst 4.00" in text  # sqrt(2 * 4)
    assert "none above 3.0: not met" in text
    assert "canonicalize: geomean 0.71, worst 1.00" in text
    assert "both: geomean 1.73, worst 3.00" in text  # 3/3 and 9/3: sqrt(1 * 3)


def test_report_gives_the_floor_over_pypto_when_measured():
    ours = [{"lower": 0.004, "canonicalize": 0.001}]
    theirs = [{"lower": 0.002, "canonicalize": 0.001}]
    text = report(["a"], [10], ours, theirs, [0.003])
    row = next(line for line in text.splitlines() if line.startswith("| a"))
    assert row.split(" | ")[-2:] == ["3.00", "1.50 |"]  # 3 ms; 3 ms / 2 ms
    assert "create floor over PyPTO's lowering: geomean 1.50, worst 1.50" in text
    assert "floor" not in report(["a"], [10], ours, theirs)


def test_the_floor_of_a_program_is_timed():
    program = pypto_compare.programs()[0]
    assert pypto_compare.floor_median(program, 1) > 0


def test_report_gives_the_lowering_less_its_collections_when_measured():
    ours = [{"lower": 0.004, "canonicalize": 0.001, pypto_compare.NET: 0.003}]
    theirs = [{"lower": 0.002, "canonicalize": 0.001}]
    text = report(["a"], [10], ours, theirs)
    header, rule, row = text.splitlines()[:3]
    assert header.count(" |") == rule.count("|---") == row.count(" |") == 11
    assert row.split(" | ")[-2:] == ["3.00", "1.50 |"]  # 3 ms; 3 ms / 2 ms
    assert "both: geomean 1.67" in text  # the collection is not counted twice
    assert f"{pypto_compare.NET}: geomean 1.50, worst 1.50" in text


def test_the_collection_clock_times_collections_only_while_entered():
    with pypto_compare.CollectionClock() as clock:
        gc.collect()
    timed = clock.seconds
    assert timed > 0
    gc.collect()
    assert clock.seconds == timed


def test_our_side_collects_once_before_the_lowering_as_pypto_does(
    monkeypatch: pytest.MonkeyPatch,
):
    collections: list[int] = []

    def collect(generation: int = 2) -> int:
        collections.append(generation)
        return 0

    monkeypatch.setattr(gc, "collect", collect)
    medians = pypto_compare.our_medians(pypto_compare.programs()[0], 2)
    assert len(collections) == 3  # the untimed run and two timed ones
    assert medians[pypto_compare.NET] <= medians["lower"]
    pypto_compare.our_medians(pypto_compare.programs()[0], 2, collect=False)
    assert len(collections) == 3


def test_a_run_is_kept_as_json_and_drawn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _stub_pypto(tmp_path, monkeypatch, _STUB_PASSES)
    chosen = pypto_compare.programs()[:2]
    monkeypatch.setattr(pypto_compare, "programs", lambda: chosen)
    run, picture = tmp_path / "run.json", tmp_path / "run.svg"
    pypto_compare.main(
        [
            "--pypto-python",
            sys.executable,
            "--repeat",
            "1",
            "--json",
            str(run),
            "--plot",
            str(picture),
        ]
    )
    rows = json.loads(run.read_text())["programs"]
    assert [row["name"] for row in rows] == ["static F=2", "dynamic F=2"]
    assert rows[0]["theirs"]["lower"] >= 0.002  # the stub's sleep
    assert set(rows[0]["ours"]) == {"lower", "canonicalize", pypto_compare.NET}
    drawn = picture.read_text()
    assert "static bounds" in drawn and "dynamic bounds" in drawn


def test_the_picture_takes_each_ratio_of_a_program():
    row = {
        "name": "static F=2",
        "ops_out": 26,
        "ours": {"lower": 0.004, "canonicalize": 0.002, pypto_compare.NET: 0.003},
        "theirs": {"lower": 0.002, "canonicalize": 0.004},
    }
    assert pypto_compare_plot.ratios(row) == {
        "lower": 2.0,
        "canonicalize": 0.5,
        "both": 1.0,
        pypto_compare_plot.NET: 1.5,
    }
    assert pypto_compare_plot.NET == pypto_compare.NET
