"""
The shape of the import graph of the two packages: no module imports one
that imports it back (also through imports for type checking only, or
inside functions), and the library (dialect, frontend, passes) never reaches
up into the console tools.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("pypto_dialect", "passes")
TOOLS = "pypto_dialect.tools"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {
        _module_name(path): path
        for package in PACKAGES
        for path in sorted((ROOT / package).rglob("*.py"))
    }


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The modules of `modules` that `path` imports, anywhere in its text."""
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            # `from a.b import c`: the module `a.b.c` if there is one (its
            # package's `__init__` runs first, as for any submodule, and is not
            # counted), else the name `c` of the module `a.b`.
            names = [
                f"{node.module}.{a.name}"
                if f"{node.module}.{a.name}" in modules
                else node.module
                for a in node.names
            ]
        else:
            continue
        imported.update(name for name in names if name in modules)
    return imported


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {name: _imports(path, modules) - {name} for name, path in modules.items()}


def test_the_graph_sees_the_packages():
    graph = _graph()
    assert "pypto_dialect.dsl.target" in graph
    assert "pypto_dialect.dsl.function_printer" in graph["pypto_dialect.dsl.target"]
    assert "passes.mechanisms.unroll" in graph["passes.lower_pipeline_loops"]


def test_no_import_cycles():
    try:
        TopologicalSorter(_graph()).prepare()
    except CycleError as error:
        pytest.fail(f"an import cycle: {' -> '.join(error.args[1])}")


def test_the_library_does_not_import_the_tools():
    library = {
        name: imports
        for name, imports in _graph().items()
        if not name.startswith(TOOLS)
    }
    reaching_up = {
        name: sorted(i for i in imports if i.startswith(TOOLS))
        for name, imports in library.items()
    }
    assert {name: up for name, up in reaching_up.items() if up} == {}


def test_the_analyses_import_no_pass_module():
    """`passes.analysis` is policy-free: it imports nothing else of `passes`."""
    reaching_up = {
        name: sorted(
            i
            for i in imports
            if i.startswith("passes") and not i.startswith("passes.analysis")
        )
        for name, imports in _graph().items()
        if name.startswith("passes.analysis")
    }
    assert {name: up for name, up in reaching_up.items() if up} == {}


MAX_LINES = 600
"""No module longer: what a reader holds at once."""


def test_no_module_is_over_600_lines():
    paths = [
        path
        for folder in (*PACKAGES, "bench", "test/unit")
        for path in (ROOT / folder).rglob("*.py")
    ]
    assert len(paths) > 100
    long = {
        str(path.relative_to(ROOT)): count
        for path in paths
        if (count := path.read_bytes().count(b"\n")) > MAX_LINES
    }
    assert long == {}
