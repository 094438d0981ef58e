"""
`skew-cross-core-pipeline` against PyPTO's own tests of its pass: each
program pair (Before, Expected) of PyPTO's
`tests/ut/ir/transforms/test_skew_cross_core_pipeline.py` reads through our
PyPTO frontend, and our pass turns Before into Expected, compared as IR:
the same ops in the same order and nesting, each operand the same value,
memberships aside (as PyPTO's test does). Where the scalar arithmetic sits
and how values are named do not count: an `index` operand is compared as
the linear form it computes.

Opt-in: `PYPTO_SOURCE` names a work tree of PyPTO (the programs are read
from it, never copied here); without it the test is skipped.
"""

from __future__ import annotations

import ast
import os
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue

from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import parse_pypto

TESTS = Path("tests/ut/ir/transforms/test_skew_cross_core_pipeline.py")
SOURCE = os.environ.get("PYPTO_SOURCE")

Form = tuple[tuple[str, int], ...]
"""A linear form: (symbol, coefficient) pairs, sorted; `1` is the constant."""


def programs() -> Iterator[tuple[str, str, str | None]]:
    """Per test of PyPTO's file: its name, Before, and Expected (if any)."""
    if SOURCE is None:
        return
    text = (Path(SOURCE) / TESTS).read_text()
    lines = text.splitlines()
    for node in ast.walk(ast.parse(text)):
        if not isinstance(node, ast.FunctionDef) or not node.name.startswith("test_"):
            continue
        classes: dict[str, str] = {}
        for statement in node.body:
            if isinstance(statement, ast.ClassDef):
                start = statement.lineno - 1 - len(statement.decorator_list)
                end = statement.end_lineno or statement.lineno
                body = textwrap.dedent("\n".join(lines[start:end]))
                classes[statement.name] = "import pypto.language as pl\n\n" + body
        if "Before" in classes:
            yield node.name, classes["Before"], classes.get("Expected")


CASES = [case for case in programs() if case[2] is not None]


class _Canonical:
    """The ops of a module but scalar arithmetic, each operand as what it computes."""

    def __init__(self) -> None:
        self.names: dict[SSAValue, str] = {}

    def value(self, value: SSAValue) -> object:
        form = self.linear(value)
        if form is not None:
            return form
        return self.names.get(value, "?")

    def linear(self, value: SSAValue) -> Form | None:
        terms: dict[str, int] = {}
        if not self._add(value, 1, terms):
            return None
        return tuple(sorted((s, c) for s, c in terms.items() if c))

    def _add(self, value: SSAValue, scale: int, terms: dict[str, int]) -> bool:
        if isinstance(value, BlockArgument) and value in self.names:
            name = self.names[value]
            terms[name] = terms.get(name, 0) + scale
            return True
        if not isinstance(value, OpResult):
            return False
        op = value.op
        if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
            terms["1"] = terms.get("1", 0) + scale * op.value.value.data
            return True
        if isinstance(op, arith.AddiOp | arith.SubiOp):
            sign = -1 if isinstance(op, arith.SubiOp) else 1
            return self._add(op.lhs, scale, terms) and self._add(
                op.rhs, sign * scale, terms
            )
        if isinstance(op, arith.MuliOp):
            for factor, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
                constant = self.linear(factor)
                if constant is not None and all(s == "1" for s, _ in constant):
                    return self._add(other, scale * sum(c for _, c in constant), terms)
        return False

    def ops(self, root: Operation) -> list[tuple[str, tuple[object, ...]]]:
        found: list[tuple[str, tuple[object, ...]]] = []
        for op in root.walk():
            if op.dialect_name() == "arith":
                continue
            operands = tuple(self.value(v) for v in op.operands)
            found.append((op.name, operands))
            for index, result in enumerate(op.results):
                self.names[result] = f"{op.name}#{len(found)}.{index}"
            for region in op.regions:
                for block in region.blocks:
                    for arg in block.args:
                        self.names[arg] = f"arg{len(found)}.{arg.index}"
        return found


def canonical(module: ModuleOp) -> list[tuple[str, tuple[object, ...]]]:
    return _Canonical().ops(module)


@pytest.mark.skipif(SOURCE is None, reason="PYPTO_SOURCE names no PyPTO work tree")
@pytest.mark.parametrize(
    ("name", "before", "expected"), CASES, ids=[c[0] for c in CASES]
)
def test_before_becomes_expected(name: str, before: str, expected: str) -> None:
    ctx = pypto_context()
    module = parse_pypto(ctx, before, f"{name}: Before")
    SkewCrossCorePipelinePass().apply(ctx, module)
    module.verify()
    wanted = parse_pypto(ctx, expected, f"{name}: Expected")
    assert canonical(module) == canonical(wanted)


@pytest.mark.skipif(SOURCE is None, reason="PYPTO_SOURCE names no PyPTO work tree")
def test_every_program_reads() -> None:
    """All of PyPTO's programs of the pass read (their 9 tests, 17 programs)."""
    cases = list(programs())
    assert len(cases) == 9
    ctx = pypto_context()
    for name, before, expected in cases:
        parse_pypto(ctx, before, f"{name}: Before").verify()
        if expected is not None:
            parse_pypto(ctx, expected, f"{name}: Expected").verify()
