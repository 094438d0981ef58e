"""
PyPTO's own parser reads what our target prints (issue 28, item 2).

Each bundled example (`examples/*.mlir`, and `examples/pypto/*.py` through
our frontend) and a fixed sample of generated kernels (`kernels(pypto_form=
True)`, derandomized) is printed with `print_pypto` as it is, after
`lower-pipeline-loops,canonicalize-io-order` and after
`lower-pipeline-to-slots`; one child process of the interpreter named by
`PYPTO_PYTHON` runs `pypto.language.parse` on every print. Opt-in: without
`PYPTO_PYTHON`, or when it cannot import `pypto`, the check is skipped with
the reason (docs/pypto-dsl.md says how to build PyPTO). The one refusal is
ours: `examples/matmul_k_loop.mlir` fills an Acc accumulator, which the
target refuses at the op; that set is checked without PyPTO. PyPTO rejects
our policy keywords of `pl.pipeline` (`overlap_stores`,
`double_buffer_acc`: ours, not PyPTO's), and reads the same print without
them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pytest
from pypto_dsl_helpers import CTX, export, run_pypto, sample
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bench.kernels.strategies import kernels
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.checked import parse_module
from pypto_dialect.dsl import ExportError, parse_pypto

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).parents[2] / "examples"

STAGES: dict[str, Sequence[ModulePass]] = {
    "input": (),
    "lowered": (LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()),
    "slots": (LowerPipelineToSlotsPass(),),
}
"""The prints of each program: the passes run before printing."""

SAMPLE = 30
"""Generated kernels per sample (the same ones every run)."""

REFUSED = {f"matmul_k_loop.mlir {stage}" for stage in STAGES}
"""The prints our target refuses, for `REASON`."""
REASON = "pl.tile.full cannot fill pl.Mem.Acc: "

POLICY = re.compile(r", (overlap_stores|double_buffer_acc)=(?:True|False)")
"""Our policy keywords of `pl.pipeline`, which PyPTO does not have."""

_CHILD = """
rejected = {}
for path in payload:
    try:
        pl.parse(open(path).read(), path)
    except Exception as error:
        chain = []  # PyPTO's loop builder raises over the error in the body
        while error is not None and len(chain) < 10:
            chain.append(f"{type(error).__name__}: {error}")
            error = error.__cause__ or error.__context__
        rejected[path] = chain
print(json.dumps({"parsed": len(payload) - len(rejected), "rejected": rejected}))
"""
"""
PyPTO's side: `pl.parse` on each file; what it rejects, with the chain of
errors (the last is where it failed).
"""


def _programs() -> list[tuple[str, ModuleOp]]:
    """The examples, their PyPTO twins and the generated kernels, named."""
    found = [
        (path.name, parse_module(CTX, path.read_text(), str(path)))
        for path in sorted(EXAMPLES.glob("*.mlir"))
    ]
    found += [
        (f"pypto/{path.name}", parse_pypto(CTX, path.read_text(), str(path)))
        for path in sorted((EXAMPLES / "pypto").glob("*.py"))
    ]
    plain = sample(kernels(pypto_form=True), SAMPLE)
    rotated = sample(
        kernels(max_stages=4, rotatable=True, bindings=True, pypto_form=True),
        SAMPLE,
    )
    found += [
        (f"kernel {k}", parse_module(CTX, kernel.text))
        for k, kernel in enumerate(plain)
    ]
    found += [
        (f"bound kernel {k}", parse_module(CTX, kernel.text))
        for k, kernel in enumerate(rotated)
    ]
    return found


@cache
def prints() -> tuple[dict[str, str], dict[str, str]]:
    """Every print by name (`<program> <stage>`), and the refused ones with their error."""
    printed: dict[str, str] = {}
    refused: dict[str, str] = {}
    for name, module in _programs():
        for stage, passes in STAGES.items():
            copy = module.clone()
            for each in passes:
                each.apply(CTX, copy)
            try:
                printed[f"{name} {stage}"] = export(copy)
            except ExportError as error:
                refused[f"{name} {stage}"] = str(error)
    return printed, refused


def test_only_the_acc_fill_is_refused() -> None:
    printed, refused = prints()
    assert set(refused) == REFUSED
    assert all(error.startswith(REASON) for error in refused.values())
    assert len(printed) == 3 * (2 * 3 + 2 * SAMPLE) - len(REFUSED)
    assert any("pl.MemRef(" in text for text in printed.values())


def _with_policy_removed(printed: dict[str, str]) -> dict[str, str]:
    """`printed`, and each print with policy keywords once more without them."""
    found = dict(printed)
    for name, text in printed.items():
        if POLICY.search(text):
            found[f"{name} without policy keywords"] = POLICY.sub("", text)
    return found


def test_pypto_parses_every_print(tmp_path: Path) -> None:
    """Every print parses but for our policy keywords, and does without them."""
    printed = _with_policy_removed(prints()[0])
    files = {name: tmp_path / f"{k}.py" for k, name in enumerate(printed)}
    for name, path in files.items():
        path.write_text(printed[name])
    answer = run_pypto(_CHILD, [str(p) for p in files.values()])
    names = {str(path): name for name, path in files.items()}
    rejected = {names[path]: chain[-1] for path, chain in answer["rejected"].items()}
    expected: dict[str, str] = {}
    for name, text in printed.items():
        if keyword := POLICY.search(text):
            unknown = f"Unknown keyword argument '{keyword.group(1)}' in pl.pipeline()"
            expected[name] = f"ParserSyntaxError: {unknown}"
    assert rejected == expected
    assert expected, "no print with a policy keyword"
