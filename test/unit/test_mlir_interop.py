"""
Interop with upstream MLIR: `mlir-opt` parses the generic form of every example,
before and after the passes, and what it prints reads back into xDSL as the
same IR and runs bit-identically. Skipped when `mlir-opt` is not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import parse

from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    kernel_names,
    parameter_names,
    random_inputs,
    run_kernel,
)

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))
PIPELINE = "lower-pipeline-loops,canonicalize-io-order"
XDSL_OPT = Path(sys.executable).parent / "xdsl-opt"
MLIR_OPT_VARIABLE = "MLIR_OPT"
TIMEOUT_SECONDS = 120


def _llvm_version(path: str) -> int:
    """N of `/usr/lib/llvm-N/bin/mlir-opt` (-1 if it is not a number)."""
    version = Path(path).parents[1].name.removeprefix("llvm-")
    return int(version) if version.isdigit() else -1


def find_mlir_opt() -> str | None:
    """
    `$MLIR_OPT` if set, else `mlir-opt` on PATH, else the Debian `mlir-N-tools`
    binary (`mlir-19-tools` first, then the newest).
    """
    if MLIR_OPT_VARIABLE in os.environ:
        return shutil.which(os.environ[MLIR_OPT_VARIABLE])
    debian = sorted(
        glob.glob("/usr/lib/llvm-*/bin/mlir-opt"), key=_llvm_version, reverse=True
    )
    candidates = ["mlir-opt", "/usr/lib/llvm-19/bin/mlir-opt", *debian]
    return next((path for name in candidates if (path := shutil.which(name))), None)


@pytest.fixture(scope="module")
def mlir_opt() -> str:
    """The `mlir-opt` binary; skips the test when there is none."""
    path = find_mlir_opt()
    if path is None:
        value = os.environ.get(MLIR_OPT_VARIABLE)
        why = (
            "install mlir-19-tools, put mlir-opt on PATH or set $MLIR_OPT"
            if value is None
            else f"${MLIR_OPT_VARIABLE}={value!r} is not an executable"
        )
        pytest.skip(f"mlir-opt (Debian mlir-19-tools) not found: {why}")
    return path


def run_tool(command: list[str], stdin: str = "") -> str:
    """The standard output of `command`, which must succeed."""
    done = subprocess.run(
        command,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stderr}"
    return done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("passes", [None, PIPELINE], ids=["before", "after"])
@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.stem)
def test_round_trip_through_mlir_opt(
    mlir_opt: str, example: Path, passes: str | None
) -> None:
    command = [str(XDSL_OPT), "--print-op-generic", str(example)]
    generic = run_tool(command if passes is None else [*command, "-p", passes])
    printed = run_tool(
        [mlir_opt, "--allow-unregistered-dialect", "--mlir-print-op-generic"], generic
    )

    ctx = pypto_context()
    original = parse(generic, ctx=ctx, name="xdsl-opt output")
    round_tripped = parse(printed, ctx=ctx, name="mlir-opt output")
    assert round_tripped.is_structurally_equivalent(original), printed

    (entry,) = kernel_names(original)
    kernel = find_kernel(original, entry)
    # mlir-opt renames the parameters %arg<i>; outputs are compared by name.
    names = parameter_names(kernel)
    for arg, name in zip(find_kernel(round_tripped, entry).args, names, strict=True):
        arg.name_hint = name
    inputs = random_inputs(kernel, seed=0)
    expected = run_kernel(original, entry, inputs)
    assert compare_runs(expected, run_kernel(round_tripped, entry, inputs)) == []
