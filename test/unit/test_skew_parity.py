"""
`skew-cross-core-pipeline` against PyPTO's SkewCrossCorePipeline, compared
as IR: the same ops in the same order and nesting, each operand the same
value, memberships aside (as PyPTO's test does). Where the scalar
arithmetic sits and how values are named do not count: an `index` operand
is compared as the linear form it computes.

* PyPTO's own tests of its pass: each program pair (Before, Expected) of
  PyPTO's `tests/ut/ir/transforms/test_skew_cross_core_pipeline.py` reads
  through our PyPTO frontend, and our pass turns Before into Expected.
  Opt-in: `PYPTO_SOURCE` names a work tree of PyPTO (the programs are read
  from it, never copied here); without it the tests are skipped.
* Generated programs (`bench.kernels.cross_core`, derandomized): PyPTO's C++
  pass runs on each in one child process of the interpreter `PYPTO_PYTHON`
  names, and its print, read back through our frontend, is compared with
  our pass's output. Opt-in: skipped with the reason without `PYPTO_PYTHON`
  or when it cannot import `pypto`. The differences we know of are expected
  by name (`KNOWN`).
"""

from __future__ import annotations

import ast
import os
import textwrap
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr
from functools import cache
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from pypto_dsl_helpers import run_pypto, sample
from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, ModuleOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.utils.exceptions import ParseError

from bench.kernels.cross_core import CrossCoreKernel, cross_core_kernels
from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass, skew_depth
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import parse_pypto
from pypto_dialect.interpreter import compare_runs
from pypto_dialect.pipeline import PipelineOp

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


SAMPLE = 300
"""Generated programs compared with PyPTO's pass (the same ones every run)."""

_SKEW = """
printed, failed = [], {}
for k, text in enumerate(payload):
    try:
        program = pl.parse(text, f"kernel{k}.py")
        printed.append(ir.python_print(passes.skew_cross_core_pipeline()(program)))
    except Exception as error:
        printed.append(None)
        failed[k] = f"{type(error).__name__}: {error}"
print(json.dumps({"printed": printed, "failed": failed}))
"""
"""PyPTO's side: each program parsed, its pass applied, the result printed."""

KNOWN: dict[str, tuple[Callable[[CrossCoreKernel], bool], str]] = {
    "the halves share memory": (
        lambda k: k.aliased and k.role == "producer" and k.pypto_skews,
        "ours demoted, PyPTO skewed: results changed",
    ),
    "a pop first feeds nothing": (
        lambda k: k.role == "idle_pop" and k.pypto_skews and k.carried != "popped",
        "ours demoted, PyPTO skewed: results kept",
    ),
    "a pop first feeds only the yield": (
        lambda k: k.role == "idle_pop" and k.pypto_skews and k.carried == "popped",
        "PyPTO's output does not read back",
    ),
}
"""
The differences we know of, by name: which programs show them, and how
(docs/passes/skew-cross-core-pipeline.md says why).
"""


@cache
def generated() -> list[CrossCoreKernel]:
    return sample(cross_core_kernels(), SAMPLE)


def features(kernel: CrossCoreKernel) -> set[str]:
    """What `kernel` exercises of PyPTO's policy."""
    found = {
        f"role {kernel.role}",
        f"{kernel.round_trips} round trip(s)",
        "dynamic" if kernel.dynamic else "static",
    }
    if not kernel.pypto_skews:
        return found
    asked = max(2, kernel.stages - 1)
    found |= {f"skewed at stages {kernel.stages}", f"skewed, carried {kernel.carried}"}
    if skew_depth(asked, kernel.trip, kernel.step) < asked:
        found.add("skewed at a smaller depth")
    if kernel.trip % 2:
        found.add("skewed, odd trip")
    if kernel.shared_address:
        found.add("skewed, an address recomputed")
    return found | {name for name, (shows, _) in KNOWN.items() if shows(kernel)}


def test_generated_programs_cover_every_case() -> None:
    found = set[str]().union(*(features(k) for k in generated()))
    wanted = {
        *(f"role {role}" for role in ("producer", "consumer", "idle_pop")),
        "1 round trip(s)",
        "2 round trip(s)",
        "dynamic",
        "static",
        *(f"skewed at stages {stages}" for stages in range(2, 9)),
        *(f"skewed, carried {carried}" for carried in ("none", "consumer")),
        "skewed at a smaller depth",
        "skewed, odd trip",
        "skewed, an address recomputed",
        *KNOWN,
    }
    assert wanted <= found, sorted(wanted - found)


def decision(module: ModuleOp) -> str:
    """`skewed` when a push or pop runs outside every loop, else what the loop became."""
    for op in module.walk():
        if op.name.startswith("pypto.tile.tp") and not any(
            parent.name in ("scf.for", "pypto.pipeline") for parent in _ancestors(op)
        ):
            return "skewed"
    if any(isinstance(op, PipelineOp) for op in module.walk()):
        return "left alone"
    return "demoted"


def _ancestors(op: Operation) -> Iterator[Operation]:
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


def ours(kernel: CrossCoreKernel, name: str) -> ModuleOp:
    ctx = pypto_context()
    module = parse_pypto(ctx, kernel.text(), name)
    with redirect_stderr(StringIO()):
        SkewCrossCorePipelinePass().apply(ctx, module)
    module.verify()
    return module


def pyptos(answer: dict[str, Any], index: int) -> ModuleOp | str:
    """PyPTO's output for program `index` read back, or what went wrong (printed)."""
    failed: dict[str, str] = answer["failed"]
    if str(index) in failed:
        print(f"kernel {index}: {failed[str(index)]}")
        return "PyPTO's pass fails"
    try:
        return parse_pypto(
            pypto_context(), answer["printed"][index], f"kernel {index}, PyPTO's"
        )
    except ParseError as error:
        print(f"kernel {index}: {error}")
        return "PyPTO's output does not read back"


def results(kernel: CrossCoreKernel, output: ModuleOp) -> str:
    """Whether `output` runs as `kernel` does on the interpreter."""
    before = kernel.run(parse_pypto(pypto_context(), kernel.text(), "kernel"), 0)
    changed = compare_runs(before, kernel.run(output, 0))
    return "results changed" if changed else "results kept"


@pytest.mark.slow
def test_generated_programs_match_pyptos_pass() -> None:
    """Each generated program: our pass's output is PyPTO's, but for `KNOWN`."""
    kernels = generated()
    answer = run_pypto(_SKEW, [kernel.text() for kernel in kernels])
    found: dict[int, str] = {}
    expected: dict[int, str] = {}
    for index, kernel in enumerate(kernels):
        mine = ours(kernel, f"kernel {index}")
        theirs = pyptos(answer, index)
        if isinstance(theirs, str):
            found[index] = theirs
        elif canonical(mine) != canonical(theirs):
            found[index] = (
                f"ours {decision(mine)}, PyPTO {decision(theirs)}: {results(kernel, theirs)}"
            )
        for name, (shows, how) in KNOWN.items():
            if shows(kernel):
                expected[index] = how
                found.setdefault(index, f"the same, not {name}")
    counts = Counter(found.values())
    print(f"{len(kernels)} programs, {len(kernels) - len(found)} the same: {counts}")
    assert found == expected
