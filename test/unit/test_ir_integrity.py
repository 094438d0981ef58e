"""`check_integrity` accepts sound IR and reports each kind of broken link."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from ir_integrity import check_integrity
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, Use
from xdsl.parser import Parser
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.context import pypto_context

SOURCE = """
func.func @f(%n: index, %c: i1) -> index {
  %c0 = arith.constant 0 : index
  %sum = arith.addi %n, %c0 : index
  %r = scf.if %c -> (index) {
    scf.yield %sum : index
  } else {
    scf.yield %n : index
  }
  cf.br ^exit(%r : index)
^exit(%out: index):
  func.return %out : index
}
"""

FUNC = "builtin.module / func.func @f at 0.0.0"
SUM = f"%sum (result #0 of {FUNC} / arith.addi at 0.0.1)"
IF = f"{FUNC} / scf.if at 0.0.2"


def sound_source() -> ModuleOp:
    """`SOURCE`, sound: nested regions, successors, block arguments."""
    module = Parser(pypto_context(), SOURCE).parse_module()
    check_integrity(module)
    return module


def find(module: ModuleOp, name: str, occurrence: int = 0) -> Operation:
    return [op for op in module.walk() if op.name == name][occurrence]


def build_detached_yield(module: ModuleOp) -> None:
    """The cascade bug: an `scf.yield` built on a value, never inserted."""
    scf.YieldOp(find(module, "arith.addi").results[0])


def drop_a_use(module: ModuleOp) -> None:
    addi = find(module, "arith.addi")
    c0 = addi.operands[1]
    c0.remove_use(next(use for use in c0.uses if use.operation is addi))


def use_a_detached_value(module: ModuleOp) -> None:
    find(module, "arith.addi").operands = [
        arith.ConstantOp.from_int_and_width(1, 64).result,
        find(module, "arith.constant").results[0],
    ]


def record_a_use_twice(module: ModuleOp) -> None:
    addi = find(module, "arith.addi")
    addi.results[0].add_use(Use(find(module, "scf.yield"), 0))


def record_a_wrong_index(module: ModuleOp) -> None:
    addi = find(module, "arith.addi")
    addi.results[0].add_use(Use(find(module, "scf.yield"), 1))


def drop_a_successor_use(module: ModuleOp) -> None:
    branch = find(module, "cf.br")
    exit_block = branch.successors[0]
    exit_block.remove_use(next(iter(exit_block.uses)))


def misplace_an_op(module: ModuleOp) -> None:
    else_block = find(module, "scf.if").regions[1].block
    find(module, "scf.yield").parent = else_block


def orphan_a_block(module: ModuleOp) -> None:
    find(module, "scf.if").regions[0].block.parent = None


def break_a_backward_link(module: ModuleOp) -> None:
    addi = find(module, "arith.addi")
    addi._prev_op = None  # pyright: ignore[reportPrivateUsage]


def link_on_from_the_last_op(module: ModuleOp) -> None:
    ret = find(module, "func.return")
    ret._next_op = find(module, "cf.br")  # pyright: ignore[reportPrivateUsage]


def link_back_from_the_first_op(module: ModuleOp) -> None:
    first = find(module, "arith.constant")
    first._prev_op = find(module, "func.return")  # pyright: ignore[reportPrivateUsage]


def misnumber_an_argument(module: ModuleOp) -> None:
    kernel = find(module, "func.func")
    assert isinstance(kernel, func.FuncOp)
    kernel.args[1].index = 0


@pytest.mark.parametrize(
    ("corrupt", "message"),
    [
        pytest.param(
            build_detached_yield,
            f"{SUM} has a use as operand #0 of scf.yield (detached), which is not "
            "in the module",
            id="detached user",
        ),
        pytest.param(
            drop_a_use,
            f"operand #1 of {FUNC} / arith.addi at 0.0.1 is %c0 (result #0 of "
            f"{FUNC} / arith.constant at 0.0.0), whose uses do not record it",
            id="missing use",
        ),
        pytest.param(
            use_a_detached_value,
            f"operand #0 of {FUNC} / arith.addi at 0.0.1 is result #0 of "
            "arith.constant (detached), which is not defined in the module",
            id="value from outside",
        ),
        pytest.param(
            record_a_use_twice,
            f"{SUM} has a use as operand #0 of {IF} / scf.yield at 0.0.0 twice",
            id="use recorded twice",
        ),
        pytest.param(
            record_a_wrong_index,
            f"{SUM} has a use as operand #1 of {IF} / scf.yield at 0.0.0, which "
            "is no operand",
            id="use at a wrong index",
        ),
        pytest.param(
            drop_a_successor_use,
            f"successor #0 of {FUNC} / cf.br at 0.0.3 is block 0.1 of {FUNC}, "
            "whose uses do not record it",
            id="missing successor use",
        ),
        pytest.param(
            misplace_an_op,
            f"scf.yield, op 0.0.0 of {IF}: its parent is block 1.0 of {IF}",
            id="op with a wrong parent",
        ),
        pytest.param(
            orphan_a_block,
            f"block 0.0 of {IF}: its parent is not region #0 of that op",
            id="block without a parent",
        ),
        pytest.param(
            break_a_backward_link,
            f"block 0.0 of {FUNC}: its ops read differently backward",
            id="broken backward link",
        ),
        pytest.param(
            link_on_from_the_last_op,
            f"block 0.1 of {FUNC}: its ops read differently backward",
            id="last op linked on",
        ),
        pytest.param(
            link_back_from_the_first_op,
            f"block 0.0 of {FUNC}: its ops read differently backward",
            id="first op linked back",
        ),
        pytest.param(
            misnumber_an_argument,
            "argument #1 of block 0.0 of builtin.module / func.func @f at 0.0.0 "
            f"says it is %c (argument #0 of block 0.0 of {FUNC})",
            id="argument with a wrong index",
        ),
    ],
)
def test_broken_links_are_reported(corrupt: Callable[[ModuleOp], None], message: str):
    module = sound_source()
    corrupt(module)
    with pytest.raises(AssertionError, match=f"^{re.escape(message)}$"):
        check_integrity(module)


def test_module_is_verified():
    module = sound_source()
    find(module, "func.return").operands = []
    with pytest.raises(VerifyException, match=r"expected \[index\], got \[\]"):
        check_integrity(module)
