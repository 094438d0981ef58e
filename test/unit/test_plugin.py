"""The `xdsl.universe` plugin: stock xDSL tools know our dialect and passes."""

from __future__ import annotations

import ast
import subprocess
import sys
from importlib.metadata import entry_points, packages_distributions, version
from pathlib import Path

import pytest
from xdsl.universe import Universe
from xdsl.xdsl_opt_main import xDSLOptMain

import pypto_dialect
from pypto_dialect.dialect import PyPTO
from pypto_dialect.tools.universe import PYPTO_UNIVERSE

EXAMPLES = Path(__file__).parents[2] / "examples"
XDSL_OPT = Path(sys.executable).parent / "xdsl-opt"
OUR_PASSES = ("lower-pipeline-loops", "canonicalize-io-order")


def test_entry_point_names_our_universe():
    (entry_point,) = (
        ep for ep in entry_points(group="xdsl.universe") if ep.name == "pypto"
    )
    assert entry_point.value == "pypto_dialect.tools.universe:PYPTO_UNIVERSE"
    assert entry_point.load() is PYPTO_UNIVERSE


def test_multiverse_has_our_dialect_and_passes():
    multiverse = Universe.get_multiverse()
    assert multiverse.all_dialects["pypto"]() is PyPTO
    for name in OUR_PASSES:
        assert multiverse.all_passes[name]().name == name


@pytest.mark.slow
def test_universe_import_is_lazy():
    """Importing the plugin (as every xDSL tool does) loads neither ops nor passes."""
    probe = (
        "import sys\n"
        "from xdsl.universe import Universe\n"
        "Universe.get_multiverse()\n"
        "heavy = sorted(m for m in sys.modules if m.startswith('passes.')\n"
        "    or m in ('pypto_dialect.tile', 'pypto_dialect.dialect'))\n"
        "assert 'pypto_dialect.tools.universe' in sys.modules\n"
        "print(heavy)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert run.stdout.strip() == "[]"


@pytest.mark.slow
def test_stock_xdsl_opt_parses_our_ir():
    for example in sorted(EXAMPLES.glob("*.mlir")):
        run = subprocess.run(
            [XDSL_OPT, example], capture_output=True, text=True, check=False
        )
        assert run.returncode == 0, run.stderr
        assert "pypto.pipeline" in run.stdout


def test_stock_xdsl_opt_finds_our_passes():
    """The pass names resolve (what the passes then do is tested elsewhere)."""
    driver = xDSLOptMain(args=["-p", ",".join(OUR_PASSES)])
    assert [p.name for p in driver.pipeline.passes] == list(OUR_PASSES)


def test_the_dialect_imports_nothing_from_the_passes():
    """The dialect stands alone: only its tools, the top of the house, use both."""
    package = Path(__file__).parents[2] / "pypto_dialect"
    offenders: list[str] = []
    for source in sorted(package.rglob("*.py")):
        if "tools" in source.relative_to(package).parts:
            continue
        for node in ast.walk(ast.parse(source.read_text())):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            offenders.extend(
                f"{source.name}: {name}"
                for name in names
                if name == "passes" or name.startswith("passes.")
            )
    assert offenders == []


def test_the_distribution_owns_the_passes_package():
    """`passes` is a top-level name: this distribution reserves it."""
    owners = packages_distributions()
    # As a set: with the checkout on the path (pytest's `pythonpath`), its
    # `.egg-info` lists the same distribution a second time.
    assert set(owners["passes"]) == {"pypto-dialect"}
    assert set(owners["pypto_dialect"]) == {"pypto-dialect"}


def test_version():
    assert pypto_dialect.__version__ == version("pypto-dialect")
