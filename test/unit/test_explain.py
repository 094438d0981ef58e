"""
`printed_names`, which `canonicalize-io-order{explain=true}` names values
by: the names xDSL's `Printer` gives them, on every module of the corpus
(as parsed, and after both passes, whose copies share their name hints), on
generated kernels, and on the cases where a value is printed before its
definition or has no name hint.
"""

from __future__ import annotations

from io import StringIO

import pytest
from corpus import parsed, sound_inputs
from hypothesis import given
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException, VerifyException

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.explain import printed_names
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops

CONTEXT = pypto_context(allow_unregistered=True)


def printer_names(root: Operation) -> dict[SSAValue, str]:
    """The name of every value of `root` in `root` as the `Printer` prints it."""
    printer = Printer(stream=StringIO())
    printer.print_op(root)
    # A value the printer named keeps its name: asking prints it again.
    return {value: printer.print_ssa_value(value) for value in _values(root)}


def _values(root: Operation) -> list[SSAValue]:
    values: list[SSAValue] = []
    for op in walk_ops(root):
        values.extend(op.results)
        for region in op.regions:
            for block in region.blocks:
                values.extend(block.args)
    return values


def _both_passes(module: ModuleOp) -> ModuleOp | None:
    """`module` after both passes, None where they reject it."""
    transformed = module.clone()
    try:
        LowerPipelineLoopsPass().apply(CONTEXT, transformed)
        CanonicalizeIOOrderPass().apply(CONTEXT, transformed)
    except (PassFailedException, VerifyException):
        return None
    return transformed


CORPUS = [pytest.param(module, id=name) for name, module in sound_inputs()]


@pytest.mark.parametrize("module", CORPUS)
def test_the_printers_names_on_the_corpus(module: ModuleOp):
    assert printed_names(module) == printer_names(module)
    transformed = _both_passes(module)
    if transformed is not None:
        assert printed_names(transformed) == printer_names(transformed)


@pytest.mark.slow
@given(kernels())
def test_the_printers_names_on_generated_kernels(kernel: GeneratedKernel):
    transformed = _both_passes(parsed(kernel.text))
    assert transformed is not None
    assert printed_names(transformed) == printer_names(transformed)


def test_numbers_and_scopes():
    """Values without a hint are numbered; each function starts again."""
    module = parsed(
        "func.func @f(%0: index) -> index {\n"
        "  %1 = arith.addi %0, %0 : index\n"
        "  %a = arith.addi %1, %1 : index\n"
        "  %2 = arith.addi %a, %a : index\n"
        "  func.return %2 : index\n"
        "}\n"
        "func.func @g(%a: index) -> index {\n"
        "  %1 = arith.addi %a, %a : index\n"
        "  func.return %1 : index\n"
        "}\n"
    )
    names = printed_names(module)
    assert names == printer_names(module)
    assert sorted(names.values()) == ["0", "0", "1", "2", "a", "a"]


def test_a_use_printed_before_its_definition():
    """
    A block printed before the block that defines the values it uses: they
    are named in the order of the uses.
    """
    module = parsed(
        "func.func @f() -> index {\n"
        "  cf.br ^def\n"
        "^use:\n"
        '  "test.op"(%t_1, %t) : (index, index) -> ()\n'
        "  func.return %t : index\n"
        "^def:\n"
        "  %t = arith.constant 1 : index\n"
        "  %t_1 = arith.constant 2 : index\n"
        "  cf.br ^use\n"
        "}\n"
    )
    names = printed_names(module)
    assert names == printer_names(module)
    first, second = (
        op.results[0] for op in walk_ops(module) if op.name == "arith.constant"
    )
    assert (names[first], names[second]) == ("t_1", "t")
