"""The test modules share helpers through helper modules, never each other."""

from __future__ import annotations

import ast
from pathlib import Path

UNIT = Path(__file__).parent
TEST_MODULES = sorted(UNIT.glob("test_*.py"))
SHARED = {"parse", "print_ir"}
"""Helpers that `helpers.py` alone defines."""


def imported_modules(path: Path) -> set[str]:
    """The top-level names of the modules `path` imports."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def defined_functions(path: Path) -> set[str]:
    """The names of the module-level functions of `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_no_test_module_imports_another():
    tests = {path.stem for path in TEST_MODULES}
    imports = {path.name: imported_modules(path) & tests for path in TEST_MODULES}
    assert {name: found for name, found in imports.items() if found} == {}


def test_parse_and_print_ir_are_defined_once():
    twins = {
        path.name: defined_functions(path) & SHARED
        for path in UNIT.glob("*.py")
        if path.name != "helpers.py"
    }
    assert {name: found for name, found in twins.items() if found} == {}
    assert defined_functions(UNIT / "helpers.py") >= SHARED


def test_the_import_check_sees_imports(tmp_path: Path):
    module = tmp_path / "test_x.py"
    module.write_text("import test_a\nfrom test_b import c\nfrom . import d\n")
    assert imported_modules(module) == {"test_a", "test_b"}
