"""
The tools import only what they use, so that they start at once: `--help`
loads no numpy, interpreter, frontend or pass; a kernel run loads neither
`ml_dtypes` (unless a narrow float needs it) nor the frontend. Each case
runs a tool in a fresh process and reads its `sys.modules`; nothing is
timed (`python -m bench startup` times them).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
ADD_ONE = str(ROOT / "examples" / "add_one.mlir")

_RUN_TOOL = """\
import contextlib, io, sys
from importlib import import_module
tool, *arguments = sys.argv[1:]
sys.argv = [tool, *arguments]
with contextlib.redirect_stdout(io.StringIO()):
    try:
        import_module(tool).main()
    except SystemExit:
        pass
print("\\n".join(sys.modules))
"""
"""Run the tool module `argv[1]` on the other arguments; print `sys.modules`."""

OPT = "pypto_dialect.tools.opt"
RUN = "pypto_dialect.tools.run"
REPORT = "pypto_dialect.tools.report"

HEAVY = ("numpy", "ml_dtypes", "matplotlib", "xdsl.interpreters", "xdsl.parser")
"""What no `--help` needs (`xdsl-opt --help` does not parse either)."""
OURS = ("pypto_dialect.dsl", "pypto_dialect.interpreter", "pypto_dialect.tile")
PASSES = ("passes.lower_pipeline_loops", "passes.canonicalize_io_order")


def imported(tool: str, *arguments: str) -> set[str]:
    """The modules loaded when `tool` (a module with `main`) runs with `arguments`."""
    finished = subprocess.run(
        [sys.executable, "-c", _RUN_TOOL, tool, *arguments],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    return set(finished.stdout.splitlines())


def loaded(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    """The `packages` (or modules of them) among `modules`."""
    return sorted(
        package
        for package in packages
        if any(name == package or name.startswith(f"{package}.") for name in modules)
    )


@pytest.mark.parametrize("tool", [OPT, RUN, REPORT])
def test_help_loads_nothing_heavy(tool: str):
    modules = imported(tool, "--help")
    assert loaded(modules, HEAVY + OURS + PASSES) == []
    assert "passes.schedule.report" not in modules


def test_a_kernel_run_loads_what_it_uses():
    modules = imported(RUN, ADD_ONE)
    assert "pypto_dialect.interpreter" in modules
    assert loaded(modules, ("ml_dtypes", "matplotlib", "pypto_dialect.dsl")) == []
    assert "xdsl.interpreters.scf" in modules


def test_a_narrow_float_loads_ml_dtypes(tmp_path: Path):
    kernel = tmp_path / "bf16.mlir"
    kernel.write_text(Path(ADD_ONE).read_text().replace("f32", "bf16"))
    assert "ml_dtypes" in imported(RUN, str(kernel))


def test_opt_on_mlir_loads_no_frontend_or_interpreter():
    modules = imported(OPT, ADD_ONE)
    assert loaded(modules, ("numpy", "pypto_dialect.dsl", "xdsl.interpreters")) == []


def test_report_loads_no_plot_library():
    modules = imported(REPORT, ADD_ONE)
    assert "passes.schedule.report" in modules
    assert loaded(modules, ("matplotlib", "ml_dtypes", "xdsl.interpreters")) == []
