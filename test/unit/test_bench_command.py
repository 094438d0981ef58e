"""`python -m bench`: one command, a name per benchmark."""

from __future__ import annotations

import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from bench.__main__ import BENCHMARKS, main

ROOT = Path(__file__).parents[2]


def test_without_a_name_it_lists_every_benchmark(capsys: pytest.CaptureFixture[str]):
    assert main([]) == 0
    listed = capsys.readouterr().out
    assert main(["--list"]) == 0
    assert capsys.readouterr().out == listed
    for name, (_, what) in BENCHMARKS.items():
        assert f"  {name} " in listed
        assert what in listed


@pytest.mark.parametrize("name", sorted(BENCHMARKS))
def test_every_name_has_a_main_and_its_own_usage(
    name: str, capsys: pytest.CaptureFixture[str]
):
    module = importlib.import_module(f"bench.{BENCHMARKS[name][0]}")
    assert callable(module.main)
    with pytest.raises(SystemExit) as exited:
        main([name, "--help"])
    assert exited.value.code == 0
    assert f"usage: python -m bench {name}" in capsys.readouterr().out


def test_an_unknown_name_fails_with_the_list():
    run = subprocess.run(
        [sys.executable, "-m", "bench", "suit"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 2
    assert "no benchmark 'suit'" in run.stderr
    assert "  suite " in run.stderr


def test_pypto_compare_needs_an_interpreter_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.delenv("PYPTO_PYTHON", raising=False)
    with pytest.raises(SystemExit) as exited:
        main(["pypto-compare"])
    assert exited.value.code == 2
    assert "--pypto-python PATH or $PYPTO_PYTHON" in capsys.readouterr().err


def test_pypto_compare_takes_the_interpreter_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    monkeypatch.setenv("PYPTO_PYTHON", str(tmp_path / "nope"))
    main(["pypto-compare", "--repeat", "1"])
    assert str(tmp_path / "nope") in capsys.readouterr().out
