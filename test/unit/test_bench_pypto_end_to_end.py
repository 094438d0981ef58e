"""
`bench.pypto_end_to_end`: our text-in, text-out stages beside xDSL's MLIR
parser and printer, PyPTO's side in an interpreter of its own (here a stub
`pypto` package) or skipped with a reason, and the report's ratios;
`bench.print_scaling`'s table.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bench import print_scaling, pypto_end_to_end
from bench.pypto_compare import programs, pypto_medians
from bench.pypto_end_to_end import STAGES, our_medians, report

_STUB = {
    "__init__.py": "",
    "language.py": "def parse(text):\n    return text\n",
    "passes.py": (
        "def lower_pipeline_loops():\n"
        "    return lambda program: program\n"
        "def canonicalize_io_order():\n"
        "    return lambda program: program\n"
    ),
    "ir.py": "import time\ndef python_print(program):\n    time.sleep(0.002)\n",
}
"""A `pypto` whose printer sleeps 2 ms."""


def _stub_pypto(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "stub" / "pypto"
    package.mkdir(parents=True)
    for name, text in _STUB.items():
        (package / name).write_text(text)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "stub"))


def test_pypto_side_times_parse_passes_and_print(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    _stub_pypto(tmp_path, monkeypatch)
    text = tmp_path / "a.py"
    text.write_text("program")
    medians = pypto_medians(
        Path(sys.executable), [text], 2, child=pypto_end_to_end.CHILD
    )
    assert not isinstance(medians, str), medians
    assert set(medians[0]) == set(STAGES)
    assert medians[0]["print"] >= 0.002 > medians[0]["passes"]
    assert medians[0]["total"] >= medians[0]["print"]


def test_our_side_times_every_stage_and_the_mlir_baselines():
    medians = our_medians(programs()[0], 1)
    assert set(medians) == {*STAGES, "mlir parse", "mlir print", "print collected"}
    parts = medians["parse"] + medians["passes"] + medians["print"]
    assert medians["total"] == pytest.approx(parts)
    assert all(seconds > 0 for seconds in medians.values())


def test_main_compares_with_pypto_when_it_can(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    _stub_pypto(tmp_path, monkeypatch)
    out = tmp_path / "run.json"
    arguments = ["--pypto-python", sys.executable, "--repeat", "1", "--first", "2"]
    pypto_end_to_end.main([*arguments, "--json", str(out)])
    text = capsys.readouterr().out
    assert "| static F=2 |" in text and "| dynamic F=2 |" in text
    assert "end to end, ours over PyPTO's: geomean" in text
    assert '"theirs"' in out.read_text()


def test_without_pypto_only_our_side_is_measured(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
):
    monkeypatch.delenv("PYPTO_PYTHON", raising=False)
    pypto_end_to_end.main(["--repeat", "1", "--first", "1"])
    text = capsys.readouterr().out
    assert text.startswith("PyPTO's side skipped: give --pypto-python")
    assert "| static F=2 |" in text and "ours over PyPTO" not in text
    pypto_end_to_end.main(
        ["--pypto-python", str(tmp_path / "nope"), "--repeat", "1", "--first", "1"]
    )
    assert "does not exist" in capsys.readouterr().out


def test_report_gives_ours_over_pypto_and_over_xdsl():
    ours = [
        {"parse": 1e-3, "passes": 2e-3, "print": 1.5e-3, "total": 4e-3}
        | {"mlir parse": 2e-3, "mlir print": 0.5e-3, "print collected": 1e-3},
        {"parse": 1e-3, "passes": 1e-3, "print": 2e-3, "total": 4e-3}
        | {"mlir parse": 1e-3, "mlir print": 2e-3, "print collected": 2e-3},
    ]
    theirs = [
        {"parse": 1e-3, "passes": 0.5e-3, "print": 0.5e-3, "total": 2e-3},
        {"parse": 4e-3, "passes": 2e-3, "print": 2e-3, "total": 8e-3},
    ]
    text = report(["a", "b"], [10, 20], ours, theirs)
    rows = [
        line.split(" | ") for line in text.splitlines() if line[:4] in ("| a ", "| b ")
    ]
    # parse, and print after a collection, over xDSL's
    assert rows[0][7] == "0.50" and rows[0][9] == "2.00"
    assert rows[0][-1] == "2.00 |" and rows[1][-1] == "0.50 |"
    assert "end to end, ours over PyPTO's: geomean 1.00, worst 2.00" in text
    assert "none above 2.0: met" in text
    assert "the passes' share of our time, all programs: 38%" in text  # 3 of 8 ms
    assert "ours over PyPTO" not in report(["a", "b"], [10, 20], ours, None)


def test_print_scaling_gives_both_printers_per_op(capsys: pytest.CaptureFixture[str]):
    print_scaling.main(["--items", "1", "2", "--repeat", "1"])
    rows = [line.split(" | ") for line in capsys.readouterr().out.splitlines()[2:]]
    assert [row[0] for row in rows] == ["| 1", "| 2"]
    assert rows[0][5:] == ["1.00", "1.00 |"]  # the first module is the reference
    assert float(rows[1][2]) > 0 and float(rows[1][3]) > 0
