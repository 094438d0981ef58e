"""`pypto-run`: summaries, saved outputs, `--passes` comparisons, and errors as messages."""

from __future__ import annotations

import io
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest
from bad_inputs import UNREADABLE
from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import FloatAttr, ModuleOp
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.exceptions import PassFailedException

import pypto_dialect
from pypto_dialect import interpreter
from pypto_dialect.tools.run import main

EXAMPLES = Path(__file__).parents[2] / "examples"
ADD_ONE = str(EXAMPLES / "add_one.mlir")
BIN = Path(sys.executable).parent

SLICE = """\
func.func @slice(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %out[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<64xf32>
  }
  func.return %n : index
}
"""


@dataclass(frozen=True)
class DoubleFloatConstantsPass(ModulePass):
    """Changes results on purpose: every float constant is doubled."""

    name = "test-double-float-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for constant in op.walk():
            if isinstance(constant, arith.ConstantOp) and isinstance(
                constant.value, FloatAttr
            ):
                value = constant.value
                constant.value = FloatAttr(2 * value.value.data, value.type)


@dataclass(frozen=True)
class FailingPass(ModulePass):
    name = "test-fail"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("this pass always fails")


PASSES = {
    **Universe.get_multiverse().all_passes,
    DoubleFloatConstantsPass.name: lambda: DoubleFloatConstantsPass,
    FailingPass.name: lambda: FailingPass,
}


def pypto_run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `pypto-run args`."""
    code = main(list(args), available_passes=PASSES)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def write(tmp_path: Path, text: str, name: str = "kernel.mlir") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("example", ["add_one", "row_softmax", "matmul_k_loop"])
def test_examples_run_and_keep_results_under_upstream_passes(
    capsys: pytest.CaptureFixture[str], example: str
) -> None:
    path = str(EXAMPLES / f"{example}.mlir")
    code, out, err = pypto_run(capsys, path, "--passes", "canonicalize,cse")
    assert (code, err) == (0, "")
    assert out.startswith(f"@{example}: seed 0\n")
    assert out.endswith("outputs bit-identical\n")


@pytest.mark.parametrize("example", ["add_one", "row_softmax", "matmul_k_loop"])
def test_examples_under_the_pypto_passes(
    capsys: pytest.CaptureFixture[str], example: str
) -> None:
    pipeline = "lower-pipeline-loops,canonicalize-io-order"
    path = str(EXAMPLES / f"{example}.mlir")
    code, out, err = pypto_run(capsys, path, "--passes", pipeline)
    assert (code, err) == (0, "")
    assert out.endswith(
        f"after --passes '{pipeline}': all {len(out.splitlines()) - 2} outputs bit-identical\n"
    )


def test_summary(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = pypto_run(
        capsys, write(tmp_path, SLICE), "--index", "n=3", "--seed", "5"
    )
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "@slice: seed 5"
    assert lines[1].startswith("  %x        unchanged  64xf32  min ")
    assert lines[2].startswith("  %out      written    64xf32  min ")
    assert lines[3] == "  result#0  i64 3"
    assert " sha256 " in lines[1]


def test_runs_are_deterministic(capsys: pytest.CaptureFixture[str]) -> None:
    first = pypto_run(capsys, ADD_ONE, "--seed", "4")
    assert pypto_run(capsys, ADD_ONE, "--seed", "4") == first
    assert pypto_run(capsys, ADD_ONE, "--seed", "5")[1] != first[1]


def test_save_and_reload(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    matmul = str(EXAMPLES / "matmul_k_loop.mlir")
    saved = str(tmp_path / "out.npz")
    code, first, _ = pypto_run(capsys, matmul, "--seed", "2", "--save", saved)
    assert code == 0
    with np.load(saved) as archive:
        assert sorted(archive.files) == ["a", "b", "c"]
        a = archive["a"].view(ml_dtypes.bfloat16)  # .npz keeps bf16 as raw bits
        assert a.shape == (16, 512)
    # Fed back, the saved arrays are the inputs: same a and b, same product.
    code, again, _ = pypto_run(capsys, matmul, "--inputs", saved)
    assert code == 0
    assert again.splitlines()[0] == f"@matmul_k_loop: inputs {saved}, seed 0"
    assert again.splitlines()[1:] == [
        line.replace("written  ", "unchanged") for line in first.splitlines()[1:]
    ]


def test_npz_inputs_override_random_ones(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    inputs = str(tmp_path / "in.npz")
    np.savez(inputs, x=np.full(1024, 2.0, np.float32))
    code, out, _ = pypto_run(capsys, ADD_ONE, "--inputs", inputs)
    assert code == 0
    assert "%out  written    1024xf32  min 3  max 3  mean 3 " in out


def test_a_result_changing_pass_is_reported(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = pypto_run(
        capsys, ADD_ONE, "--passes", "test-double-float-constants"
    )
    assert (code, err) == (1, "")
    lines = out.splitlines()
    assert (
        lines[-2]
        == "after --passes 'test-double-float-constants': 1 of 2 outputs differ"
    )
    assert lines[-1].startswith("  out: 1024 of 1024 elements differ (first at [0]): ")


def test_a_failing_pass_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = pypto_run(capsys, ADD_ONE, "--passes", "test-fail")
    assert code == 1
    assert (
        err == f"{ADD_ONE}: error: after --passes 'test-fail': this pass always fails\n"
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--passes", "no-such-pass"],
            "pypto-run: error: --passes: unknown pass 'no-such-pass' "
            "(pypto-opt --list-passes lists the passes)",
        ),
        (
            ["--passes", "cse{{"],
            "pypto-run: error: --passes: Error parsing pass pipeline specification:",
        ),
        (
            ["--entry", "nope"],
            "{kernel}: error: no function @nope in the module (functions: @slice)",
        ),
        (
            ["--index", "n=9"],
            "{kernel}:7:5: error: pypto.tile.load: window [64:72] is out of bounds of !pypto.tensor<64xf32>\n"
            "    %t = pypto.tile.load %x[%off] :",
        ),
        (
            ["--index", "m=9"],
            "{kernel}: error: @slice: no parameter named m (parameters: x, out, n)",
        ),
        (
            ["--index", "x=9"],
            "{kernel}: error: argument %x must be an array for !pypto.tensor<64xf32>, got int",
        ),
        (
            ["--inputs", "{missing}"],
            "{missing}: error: cannot read the inputs: No such file or directory",
        ),
        (
            ["--inputs", "{kernel}"],
            "{kernel}: error: cannot read the inputs: not an .npz archive",
        ),
        (
            ["--inputs", "{bad_shape}"],
            "{kernel}: error: argument %x must be a (64,) array of float32",
        ),
        (
            ["--inputs", "{unknown}"],
            "{kernel}: error: @slice: no parameter named y (parameters: x, out, n)",
        ),
        (
            ["--index", "n=1", "--save", "{missing_dir}"],
            "{missing_dir}: error: cannot save the outputs:",
        ),
    ],
)
def test_errors_are_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    files = {
        "kernel": write(tmp_path, SLICE),
        "missing": str(tmp_path / "missing.npz"),
        "missing_dir": str(tmp_path / "no" / "out.npz"),
        "bad_shape": str(tmp_path / "bad_shape.npz"),
        "unknown": str(tmp_path / "unknown.npz"),
    }
    np.savez(files["bad_shape"], x=np.zeros(3, np.float32))
    np.savez(files["unknown"], y=np.zeros(3, np.float32))
    args = [arg.format(**files) for arg in args]
    code, _, err = pypto_run(capsys, files["kernel"], *args)
    assert code == 1
    assert err.startswith(message.format(**files))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "func.func @f() {\n  %x = arith.constant 1 : foo\n}\n",
            "{kernel}:2:27: error: type expected\n  %x = arith.constant 1 : foo\n",
        ),
        (
            "func.func @f(%x: !pypto.tensor<8xf32>) {\n"
            "  %c9 = arith.constant 9 : index\n"
            "  %t = pypto.tile.load %x[%c9] : !pypto.tensor<8xf32> -> !pypto.tile<4xf32, vec>\n"
            "  func.return\n}\n",
            "{kernel}:3:3: error: 'pypto.tile.load' op window [9, 13) is out of bounds "
            "of dimension 0 of size 8\n  %t = pypto.tile.load %x[%c9] :",
        ),
        (
            "func.func @f() {\n  func.return\n}\nfunc.func @g() {\n  func.return\n}\n",
            "pypto-run: error: choose the function to run with --entry (functions: @f, @g)",
        ),
    ],
)
def test_file_errors_are_messages(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, text: str, message: str
) -> None:
    kernel = write(tmp_path, text)
    code, _, err = pypto_run(capsys, kernel)
    assert code == 1
    assert err.startswith(message.format(kernel=kernel))


def test_unreadable_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, _, err = pypto_run(capsys, str(tmp_path / "none.mlir"))
    assert code == 1
    assert err.startswith(f"pypto-run: error: cannot read {tmp_path / 'none.mlir'}: ")


def test_bad_flags_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main([ADD_ONE, "--index", "n"])
    assert exit_info.value.code == 2
    assert "argument --index: expected NAME=INTEGER, got 'n'" in capsys.readouterr().err


@pytest.mark.slow
def test_console_script(tmp_path: Path) -> None:
    kernel = write(tmp_path, SLICE)
    ok = subprocess.run(
        [BIN / "pypto-run", kernel, "--index", "n=8", "--passes", "cse"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0
    assert ok.stdout.endswith("after --passes 'cse': all 3 outputs bit-identical\n")
    failing = subprocess.run(
        [BIN / "pypto-run", kernel, "--index", "n=9"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert failing.returncode == 1
    assert failing.stderr == (
        f"{kernel}:7:5: error: pypto.tile.load: window [64:72] is out of bounds of "
        "!pypto.tensor<64xf32>\n"
        "    %t = pypto.tile.load %x[%off] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>\n"
        "    ^^\n"
    )


@pytest.mark.parametrize(("data", "problem"), UNREADABLE)
def test_input_that_is_not_text(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    data: bytes,
    problem: str,
) -> None:
    kernel = tmp_path / "kernel.mlir"
    kernel.write_bytes(data)
    assert pypto_run(capsys, str(kernel)) == (
        1,
        "",
        f"pypto-run: error: cannot read {kernel}: {problem}\n",
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert pypto_run(capsys, "-") == (
        1,
        "",
        f"pypto-run: error: cannot read <stdin>: {problem}\n",
    )


def _crash(*args: object, **kwargs: object) -> None:
    raise RuntimeError("boom")


def test_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A bug (here in the interpreter) is two lines and exit code 70."""
    monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
    monkeypatch.setattr(interpreter, "run_kernel", _crash)
    assert pypto_run(capsys, ADD_ONE) == (
        70,
        "",
        "pypto-run: error: internal error: RuntimeError: boom\n"
        "pypto-run: please report this bug with the input file "
        "(--traceback shows where it happened)\n",
    )


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_internal_error_with_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    monkeypatch.setattr(interpreter, "run_kernel", _crash)
    args = [ADD_ONE]
    if how == "flag":
        monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
        args.append("--traceback")
    else:
        monkeypatch.setenv("PYPTO_TRACEBACK", "1")
    assert main(args, available_passes=PASSES) == 70
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith("RuntimeError: boom\n")
    assert "internal error" not in err


def test_internal_error_exits_the_process_with_70(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A message-less exception is named alone."""
    monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
    crashing = (
        "import sys\n"
        "from pypto_dialect import interpreter\n"
        "from pypto_dialect.tools import run\n"
        "def crash(*args, **kwargs):\n"
        "    raise MemoryError\n"
        "interpreter.run_kernel = crash\n"
        "sys.exit(run.main())\n"
    )
    failing = subprocess.run(
        [sys.executable, "-c", crashing, ADD_ONE],
        capture_output=True,
        text=True,
        check=False,
    )
    assert failing.returncode == 70
    assert failing.stderr.splitlines()[0] == (
        "pypto-run: error: internal error: MemoryError"
    )


def test_version(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"pypto-run {pypto_dialect.__version__} ")
