"""
The PyPTO frontend and target as an API (`parse_pypto`, `print_pypto`, the
xDSL plugin), on the bundled examples and their PyPTO twins, and on programs
of several classes.
"""

from __future__ import annotations

import subprocess
import sys
from io import BytesIO, StringIO
from pathlib import Path

import pytest
from pypto_dsl_helpers import CTX, export, program, round_trip
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.parser import Parser
from xdsl.universe import Universe
from xdsl.utils.exceptions import ParseError

from pypto_dialect.checked import OpSpans
from pypto_dialect.dsl import ExportError, parse_pypto
from pypto_dialect.dsl.plugin import (
    ExitingExportError,
    ExitingParseError,
    PyPTOFrontend,
    PyPTOTarget,
)
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    kernel_names,
    random_inputs,
    run_kernel,
)
from pypto_dialect.walks import walk_ops

# --------------------------------------------------------------------------- #
# The API and the plugin
# --------------------------------------------------------------------------- #


def test_ops_know_their_python_source() -> None:
    spans: OpSpans = {}
    module = parse_pypto(
        CTX, program("t = pl.tile.load(x, [0, 0], [16, 64])"), "k.py", op_spans=spans
    )
    (load,) = (op for op in walk_ops(module) if op.name == "pypto.tile.load")
    assert isinstance(load.location, FileLineColLoc)
    assert (
        load.location.filename.data,
        load.location.line.data,
        load.location.column.data,
    ) == ("k.py", 8, 13)
    assert load in spans


def test_the_input_is_never_imported_or_executed() -> None:
    probe = (
        "import sys\n"
        "from pypto_dialect.context import pypto_context\n"
        "from pypto_dialect.dsl import parse_pypto\n"
        "text = 'import pypto.language as pl\\n@pl.program\\nclass P:\\n    print(\"ran\")\\n'\n"
        "try:\n    parse_pypto(pypto_context(), text)\nexcept Exception as e:\n    print(type(e).__name__)\n"
        "print('pypto' in sys.modules)\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["ParseError", "False"]


def test_print_pypto_raises_an_export_error_at_the_op() -> None:
    module = Parser(
        CTX,
        "func.func @f(%x: f32) -> f32 {\n  %y = math.absf %x : f32\n  func.return %y : f32\n}",
    ).parse_module()
    with pytest.raises(ExportError) as info:
        export(module)
    assert str(info.value) == "has no PyPTO form"
    assert info.value.op is not None and info.value.op.name == "math.absf"


def test_the_universe_registers_the_frontend_and_the_target() -> None:
    multiverse = Universe.get_multiverse()
    assert multiverse.all_frontends["pypto"]() is PyPTOFrontend
    assert multiverse.all_frontends["py"]().name == "py"
    assert multiverse.all_targets["pypto"]() is PyPTOTarget


def test_the_plugin_errors_exit_cleanly_from_stock_xdsl_opt() -> None:
    with pytest.raises(ExitingParseError) as parse_info:
        PyPTOFrontend().parse(CTX, BytesIO(b"x = (\n"), "bad.py")
    assert isinstance(parse_info.value, ParseError | SystemExit)
    assert str(parse_info.value.code).startswith(
        "bad.py:1:5: error: Python syntax error"
    )
    module = Parser(CTX, "func.func private @f()").parse_module()
    with pytest.raises(ExitingExportError) as export_info:
        PyPTOTarget().emit(CTX, module, StringIO())
    assert (
        str(export_info.value.code)
        == "error: 'func.func' op a function declaration has no PyPTO form"
    )


# --------------------------------------------------------------------------- #
# The bundled examples and their PyPTO twins
# --------------------------------------------------------------------------- #

EXAMPLES = Path(__file__).parents[2] / "examples"
TWINS = sorted(EXAMPLES.glob("*.mlir"))


def test_every_example_has_a_pypto_twin() -> None:
    assert TWINS
    assert {p.stem for p in TWINS} == {
        p.stem for p in (EXAMPLES / "pypto").glob("*.py")
    }


# The examples without a PyPTO form: their twin is written otherwise.
UNEXPORTED = {"matmul_k_loop": "pl.tile.full cannot fill pl.Mem.Acc"}


@pytest.mark.parametrize("mlir", TWINS, ids=[p.stem for p in TWINS])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_pypto_twin_runs_bit_identically(mlir: Path, seed: int) -> None:
    """The twin, and the example's own print when it has one, run as the example."""
    original = Parser(CTX, mlir.read_text(), str(mlir)).parse_module()
    twin_path = EXAMPLES / "pypto" / f"{mlir.stem}.py"
    modules = [parse_pypto(CTX, twin_path.read_text(), str(twin_path))]
    if mlir.stem not in UNEXPORTED:
        modules.append(parse_pypto(CTX, export(original), "exported.py"))
    (entry,) = kernel_names(original)
    inputs = random_inputs(find_kernel(original, entry), seed)
    expected = run_kernel(original, entry, inputs)
    for module in modules:
        assert compare_runs(expected, run_kernel(module, entry, inputs)) == []


@pytest.mark.parametrize("stem", sorted(UNEXPORTED))
def test_an_example_without_a_pypto_form_fails_at_its_op(stem: str) -> None:
    mlir = EXAMPLES / f"{stem}.mlir"
    original = Parser(CTX, mlir.read_text(), str(mlir)).parse_module()
    with pytest.raises(ExportError, match=UNEXPORTED[stem]):
        export(original)


def test_programs_several_classes_an_alias_and_methods_without_self() -> None:
    text = (
        "from pypto import language as pypl\n\n\n"
        "@pypl.program\nclass A:\n"
        "    @pypl.function(strict_ssa=True)\n"
        "    def kernel(a: pypl.Tensor[[8], pypl.FP32], n: pypl.Scalar[pypl.INDEX]):\n"
        "        t = pypl.tile.load(a, [0], [8])\n\n\n"
        "@pypl.program\nclass B:\n    pass\n"
    )
    module, exported = round_trip(text)
    assert [
        op.sym_name.data
        for op in module.ops
        if isinstance(op, ModuleOp) and op.sym_name
    ] == ["A", "B"]
    assert (
        "    def kernel(self, a: pl.Tensor[[8], pl.FP32], n: pl.Scalar[pl.INDEX]):\n"
        in exported
    )
    assert exported.endswith("# pypto.program: B\n@pl.program\nclass B:\n    pass\n")


def test_a_module_without_a_name_prints_as_program() -> None:
    module = Parser(CTX, "func.func @f() {\n  func.return\n}\n").parse_module()
    assert export(module) == (
        "# pypto.program: Program\nimport pypto.language as pl\n\n\n@pl.program\n"
        "class Program:\n    @pl.function\n    def f(self):\n        pass\n"
    )
