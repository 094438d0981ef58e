"""`pypto-opt`: xdsl-opt's behaviour, with diagnostics as `error:` lines and exit code 1."""

from __future__ import annotations

import dataclasses
import io
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pytest
from bad_inputs import UNREADABLE
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException
from xdsl.xdsl_opt_main import xDSLOptMain

import pypto_dialect
from passes import get_all_passes
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect import checked
from pypto_dialect.tile import StoreOp
from pypto_dialect.tools.opt import PyPTOOptMain, main
from pypto_dialect.tools.pipelines import (
    PassOption,
    PipelineError,
    help_pass,
    list_passes,
    parse_pipeline,
    pass_options,
)

BIN = Path(sys.executable).parent
EXAMPLE = Path(__file__).parents[2] / "examples" / "add_one.mlir"

BAD_LOAD = """\
func.func @f(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}
"""


@dataclass(frozen=True)
class FailOnStorePass(ModulePass):
    """A pass that fails on the first store, attaching the error to it."""

    name = "test-fail-on-store"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for store in op.walk():
            if isinstance(store, StoreOp):
                message = "stores are not allowed here"
                store.emit_error(message, PassFailedException(message))


@dataclass(frozen=True)
class FailPass(ModulePass):
    """A pass that fails without pointing at an op."""

    name = "test-fail"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("nothing to point at")


class _OptWithTestPasses(PyPTOOptMain):
    def register_all_passes(self) -> None:
        super().register_all_passes()
        for test_pass in (FailOnStorePass, FailPass):
            self.register_pass(test_pass.name, lambda p=test_pass: p)


def run_opt(
    capsys: pytest.CaptureFixture[str],
    args: Sequence[str],
    driver: Callable[[Sequence[str]], None] = main,
) -> tuple[int, str, str]:
    """Run a driver in-process: its exit code, stdout and stderr."""
    try:
        driver(args)
        code = 0
    except SystemExit as exit_:
        code = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "input.mlir"
    path.write_text(text)
    return path


def test_verifier_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, BAD_LOAD)
    code, out, err = run_opt(capsys, [str(path)])
    assert code == 1
    assert out == ""
    assert err.splitlines() == [
        f"{path}:2:3: error: 'pypto.tile.load' op expected 2 tensor offsets "
        "(one per dimension), got 1",
        "  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> "
        "!pypto.tile<64x64xf32, vec>",
        "  ^^",
    ]


def test_parse_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    path = write(tmp_path, "func.func private @f(!pypto.tile<8xf32, ub>)\n")
    code, out, err = run_opt(capsys, [str(path)])
    assert code == 1
    assert out == ""
    assert err.splitlines()[0] == (
        f"{path}:1:41: error: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`."
    )
    assert "Traceback" not in err


def test_unknown_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, _, err = run_opt(capsys, [str(EXAMPLE), "-p", "no-such-pass"])
    assert code == 1
    assert err == (
        "pypto-opt: error: --passes: unknown pass 'no-such-pass' "
        "(pypto-opt --list-passes lists the passes)\n"
    )


def test_missing_input_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    code, _, err = run_opt(capsys, [str(tmp_path / "missing.mlir")])
    assert code == 1
    assert (
        err
        == f"pypto-opt: error: cannot read {tmp_path / 'missing.mlir'}: No such file or directory\n"
    )


def test_pass_failure_points_at_the_op(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    code, out, err = run_opt(
        capsys,
        [str(EXAMPLE), "-p", "test-fail-on-store"],
        lambda args: _OptWithTestPasses(args=args).run(),
    )
    assert code == 1
    assert out == ""
    lines = err.splitlines()
    assert lines[0] == (
        f"{EXAMPLE}:12:5: error: 'pypto.tile.store' op stores are not allowed here"
    )
    assert lines[1].strip().startswith("pypto.tile.store %y, %out[%off]")


def test_diagnostic_on_an_op_a_pass_created_is_located(
    capsys: pytest.CaptureFixture[str],
):
    """
    Copies and new ops have the location of their source op. The first store
    is copy 0 of the main loop, the parsed store itself, so its line shows.
    """
    code, out, err = run_opt(
        capsys,
        [str(EXAMPLE), "-p", "lower-pipeline-loops,test-fail-on-store"],
        lambda args: _OptWithTestPasses(args=args).run(),
    )
    assert code == 1
    assert out == ""
    assert err.startswith(
        f"{EXAMPLE}:12:5: error: 'pypto.tile.store' op stores are not allowed here\n"
        "    pypto.tile.store %y, %out[%off]"
    )


def test_parsed_ops_have_file_locations(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run_opt(
        capsys, [str(EXAMPLE), "--print-debuginfo", "-p", "lower-pipeline-loops"]
    )
    assert code == 0
    # The pipeline is at 6:3: the ops the lowering creates take its location;
    # the copies of the store (12:5) keep the store's.
    assert f'%c4 = arith.constant 4 : index loc("{EXAMPLE}":6:3)' in out
    assert out.count(f'pypto.tensor<1024xf32> loc("{EXAMPLE}":12:5)') == 4


def test_pass_failure_without_op(capsys: pytest.CaptureFixture[str]):
    code, _, err = run_opt(
        capsys,
        [str(EXAMPLE), "-p", "test-fail"],
        lambda args: _OptWithTestPasses(args=args).run(),
    )
    assert code == 1
    assert err == f"{EXAMPLE}: error: nothing to point at\n"


def test_verify_diagnostics_as_in_xdsl_opt(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    path = write(tmp_path, BAD_LOAD)
    args = [str(path), "--verify-diagnostics"]
    ours = run_opt(capsys, args)
    theirs = run_opt(capsys, args, lambda a: xDSLOptMain(args=a).run())
    assert ours == theirs
    assert ours[0] == 0
    assert "expected 2 tensor offsets" in ours[1]


@pytest.mark.parametrize(
    "flags", [[], ["--print-op-generic"], ["-p", "canonicalize,cse"]]
)
def test_output_equals_xdsl_opt(capsys: pytest.CaptureFixture[str], flags: list[str]):
    args = [str(EXAMPLE), *flags]
    ours = run_opt(capsys, args)
    theirs = run_opt(capsys, args, lambda a: xDSLOptMain(args=a).run())
    assert ours == theirs
    assert ours[0] == 0
    assert "pypto.tile" in ours[1]


def test_console_script(tmp_path: Path):
    """The installed script: exit code 1 and an `error:` line, no traceback."""
    path = write(tmp_path, BAD_LOAD)
    run = subprocess.run(
        [BIN / "pypto-opt", path], capture_output=True, text=True, check=False
    )
    assert run.returncode == 1
    assert run.stdout == ""
    assert f"{path}:2:3: error: 'pypto.tile.load' op" in run.stderr
    assert "Traceback" not in run.stderr


def test_verifies_once_after_parsing_and_after_each_pass(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """With `verify_module` only: xDSL's own `module.verify()` is off."""
    verified: list[ModuleOp] = []
    verify = ModuleOp.verify

    def recording_verify(module: ModuleOp) -> None:
        verified.append(module)
        verify(module)

    monkeypatch.setattr(ModuleOp, "verify", recording_verify)
    # xDSL's `--disable-verify` turns off attribute verification for the whole
    # process (`Attribute.__post_init__`): restore it after the test.
    monkeypatch.setattr(Attribute, "__post_init__", Attribute.__post_init__)
    assert run_opt(capsys, [str(EXAMPLE), "-p", "canonicalize,cse"])[0] == 0
    assert len(verified) == 3
    verified.clear()
    assert run_opt(capsys, [str(EXAMPLE), "--disable-verify"])[0] == 0
    assert verified == []


@pytest.mark.parametrize(("data", "problem"), UNREADABLE)
def test_input_that_is_not_text(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: bytes,
    problem: str,
):
    path = tmp_path / "input.mlir"
    path.write_bytes(data)
    assert run_opt(capsys, [str(path)]) == (
        1,
        "",
        f"pypto-opt: error: cannot read {path}: {problem}\n",
    )
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert run_opt(capsys, []) == (
        1,
        "",
        f"pypto-opt: error: cannot read <stdin>: {problem}\n",
    )


@pytest.mark.parametrize(
    ("name", "problem"),
    [("kernel.txt", "unknown file extension '.txt'"), ("kernel", "no file extension")],
)
def test_unknown_file_extension(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, problem: str
):
    path = tmp_path / name
    path.write_text(EXAMPLE.read_text())
    assert run_opt(capsys, [str(path)]) == (
        1,
        "",
        f"pypto-opt: error: cannot read {path}: {problem} (known: .mlir, .py, .pypto)\n",
    )


def _crash(*args: object) -> None:
    raise RuntimeError("boom")


INTERNAL_ERROR_LINES = [
    "pypto-opt: error: internal error: RuntimeError: boom",
    "pypto-opt: please report this bug with the input file "
    "(--traceback shows where it happened)",
]


def test_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    """A bug (here in the verification) is two lines and exit code 70."""
    monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
    monkeypatch.setattr(checked, "verify_module", _crash)
    code, out, err = run_opt(capsys, [str(EXAMPLE)])
    assert (code, out, err.splitlines()) == (70, "", INTERNAL_ERROR_LINES)


def test_internal_error_before_the_command_line_is_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
    monkeypatch.setattr(PyPTOOptMain, "register_all_passes", _crash)
    code, _, err = run_opt(capsys, [str(EXAMPLE)])
    assert (code, err.splitlines()) == (70, INTERNAL_ERROR_LINES)


@pytest.mark.parametrize("how", ["flag", "environment"])
def test_internal_error_with_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, how: str
):
    monkeypatch.setattr(checked, "verify_module", _crash)
    args = [str(EXAMPLE)]
    if how == "flag":
        monkeypatch.delenv("PYPTO_TRACEBACK", raising=False)
        args.append("--traceback")
    else:
        monkeypatch.setenv("PYPTO_TRACEBACK", "1")
    code, out, err = run_opt(capsys, args)
    assert (code, out) == (70, "")
    assert err.startswith("Traceback (most recent call last):\n")
    assert err.endswith("RuntimeError: boom\n")
    assert "internal error" not in err


def test_version(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run_opt(capsys, ["--version"])
    assert code == 0
    assert out.startswith(
        f"pypto-opt {pypto_dialect.__version__} (pypto-dialect, on xdsl "
    )


# --------------------------------------------------------------------------- #
# Pass pipelines (`pypto_dialect.tools.pipelines`, shared by the three tools)
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class _Sizes:
    """A base class whose field docstrings its passes inherit."""

    tile_sizes: tuple[int, ...] = (8, 8)
    """The size of a tile in each dimension."""


@dataclass(frozen=True)
class OptionsPass(_Sizes, ModulePass):
    """
    A pass with an option of every kind. Its first sentence is its summary.

    The rest describes it.
    """

    name = "test-options"

    mode: Literal["fast", "none"] = "fast"
    """How fast."""
    scale: float = 1.0
    level: int | None = None
    """A level, or none."""
    target: str = dataclasses.field(default="cpu")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


@dataclass(frozen=True)
class RequiredPass(ModulePass):
    name = "test-required"

    arch: str

    def __post_init__(self) -> None:
        if self.arch == "unknown":
            raise ValueError("arch 'unknown' is not an architecture")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pass


def _missing_dependency() -> type[ModulePass]:
    raise ImportError("No module named 'accelerator'")


TEST_PASSES: dict[str, Callable[[], type[ModulePass]]] = {
    "test-options": lambda: OptionsPass,
    "test-required": lambda: RequiredPass,
    "test-missing": _missing_dependency,
}


def pipeline_error(spec: str) -> str:
    with pytest.raises(PipelineError) as raised:
        parse_pipeline(spec, TEST_PASSES)
    return str(raised.value)


def test_pipeline_of_every_option_kind():
    spec = (
        "test-options{tile-sizes=4,2 mode=none scale=2.5 level=3 target=gpu},"
        "test-options{level},test-required{arch=x86}"
    )
    passes = parse_pipeline(spec, TEST_PASSES).passes
    assert passes == (
        OptionsPass(tile_sizes=(4, 2), mode="none", scale=2.5, level=3, target="gpu"),
        OptionsPass(level=None),
        RequiredPass(arch="x86"),
    )


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (
            "test-option",
            "unknown pass 'test-option'; did you mean 'test-options'? "
            "(pypto-opt --list-passes lists the passes)",
        ),
        (
            "test-options{tilesizes=2}",
            "pass 'test-options' has no option 'tilesizes'; did you mean "
            "'tile-sizes'? (its options: tile-sizes (or tile_sizes); mode; scale; "
            "level; target; `pypto-opt --help-pass test-options` describes them)",
        ),
        (
            "test-options{mode=slow}",
            "pass 'test-options': option 'mode' takes one of fast, none, got 'slow'",
        ),
        (
            "test-options{scale=2}",
            "pass 'test-options': option 'scale' takes a number with a decimal "
            "point (2.0, not 2), got '2'",
        ),
        (
            "test-options{tile_sizes=1,x}",
            "pass 'test-options': option 'tile_sizes' takes integers separated by "
            "commas, got '1,x'",
        ),
        (
            "test-options{level=false}",
            "pass 'test-options': option 'level' takes an integer, or nothing "
            "(the option alone), got 'false'",
        ),
        ("test-required", "pass 'test-required' needs the option 'arch' (a string)"),
        (
            "test-required{arch=unknown}",
            "pass 'test-required': arch 'unknown' is not an architecture",
        ),
        (
            "test-missing",
            "pass 'test-missing' cannot be loaded: No module named 'accelerator'",
        ),
    ],
)
def test_pipeline_mistakes(spec: str, message: str):
    assert pipeline_error(spec) == message


def test_unknown_passes_are_found_before_any_pass_is_loaded():
    """`test-missing` is not loaded: the unknown name after it is reported."""
    assert pipeline_error("test-missing,no-such-pass").startswith(
        "unknown pass 'no-such-pass'"
    )


def test_a_long_value_is_cut_short():
    message = pipeline_error("test-options{mode=" + "9" * 4_000 + "}")
    assert message.endswith(f"got '{'9' * 37}...'")


def test_an_integer_too_long_to_read():
    assert pipeline_error("test-options{level=" + "9" * 10_000 + "}") == (
        "cannot read the pipeline: an integer has more than "
        f"{sys.get_int_max_str_digits()} digits"
    )


def test_pass_options_read_the_attribute_docstrings():
    options = {option.name: option for option in pass_options(OptionsPass)}
    assert list(options) == ["tile-sizes", "mode", "scale", "level", "target"]
    assert options["tile-sizes"].description == "The size of a tile in each dimension."
    assert options["tile-sizes"].spellings == "tile-sizes (or tile_sizes)"
    assert options["tile-sizes"].default_text == "8,8"
    assert options["mode"].description == "How fast."
    assert options["scale"].description is None
    assert options["level"].default_text == "none"
    assert options["target"].default_text == '"cpu"'
    (arch,) = pass_options(RequiredPass)
    assert arch.required
    assert arch.default_text == "none: required"


def test_help_pass_of_a_pass_with_options():
    assert help_pass("test-options", TEST_PASSES).splitlines() == [
        "test-options (test_pypto_opt.OptionsPass)",
        "",
        "  A pass with an option of every kind. Its first sentence is its summary.",
        "",
        "  The rest describes it.",
        "",
        "Options (test-options{option=value ...}):",
        "  tile-sizes (or tile_sizes): integers separated by commas; default 8,8",
        "      The size of a tile in each dimension.",
        '  mode: one of fast, none; default "fast"',
        "      How fast.",
        "  scale: a number with a decimal point (2.0, not 2); default 1.0",
        "      (no description)",
        "  level: an integer, or nothing (the option alone); default none",
        "      A level, or none.",
        '  target: a string; default "cpu"',
        "      (no description)",
    ]


def test_list_passes_groups_and_summarizes():
    passes = {**TEST_PASSES, "lower-pipeline-loops": lambda: LowerPipelineLoopsPass}
    lines = list_passes(passes).splitlines()
    assert lines[:3] == [
        "pypto-dialect passes:",
        "  lower-pipeline-loops  Unroll every `pypto.pipeline` of `stages F > 1` F "
        "times, tagging the copies",
        "",
    ]
    assert "  test-options   A pass with an option of every kind" in lines
    assert "  test-required  (no description)" in lines
    assert "  test-missing  No module named 'accelerator'" in lines


def test_list_passes_and_help_pass_exit(capsys: pytest.CaptureFixture[str]):
    code, out, _ = run_opt(capsys, ["--list-passes"])
    assert code == 0
    assert "  canonicalize-io-order  " in out
    code, out, _ = run_opt(capsys, ["--help-pass", "canonicalize-io-order"])
    assert code == 0
    assert out.startswith("canonicalize-io-order (passes.canonicalize_io_order.")
    code, out, err = run_opt(capsys, ["--help-pass", "no-such-pass"])
    assert (code, out) == (1, "")
    assert err.startswith("pypto-opt: error: --help-pass: unknown pass")


DOCS = Path(__file__).parents[2] / "docs" / "passes"


def _documented_options(page: Path) -> list[list[str]]:
    """The rows (cells) of the table of the page's `## Options` section."""
    section = page.read_text().split("\n## Options\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


@pytest.mark.parametrize("name", sorted(get_all_passes()))
def test_pass_pages_list_the_options_as_help_pass_does(name: str):
    """The options table of `docs/passes/NAME.md`: `--help-pass NAME`'s facts."""
    options = pass_options(get_all_passes()[name]())
    rows = _documented_options(DOCS / f"{name}.md")
    assert [row[:3] for row in rows] == [
        [_markdown_spellings(option), option.accepted, option.default_text]
        for option in options
    ]


def _markdown_spellings(option: PassOption) -> str:
    """`` `max-copies` (or `max_copies`) ``: `PassOption.spellings` in code spans."""
    other = f" (or `{option.field}`)" if option.field != option.name else ""
    return f"`{option.name}`{other}"


@pytest.mark.slow
def test_list_passes_to_a_reader_that_stops():
    """`pypto-opt --list-passes | head`: no error when the pipe closes."""
    with subprocess.Popen(
        [BIN / "pypto-opt", "--list-passes"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        assert process.stdout is not None and process.stderr is not None
        process.stdout.close()
        err = process.stderr.read()
        assert (process.wait(), err) == (0, b"")
