"""
Both passes, then upstream lowerings and cleanups, on every lit input.

Each `// -----` chunk of the lit inputs of both passes, and each example, goes
through `CHAIN` (and `CHAIN` with `licm` while loops remain) in one process,
on one in-memory module, with `check_integrity` after every pass: what
`xdsl-opt` prints can be sound while the in-memory IR is not, and only a later
pass in the same process sees it. The chunks that exist to fail the first
pass are listed in `REJECTED` with their message, which the first pass must
give; every other chunk must go through. For chunks with loops outside
functions the chain stops before `convert-scf-to-cf` (the blocks it makes
cannot go in a module).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ir_integrity import apply_checked
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.passes import ModulePass, PassPipeline
from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException

from pypto_dialect.context import pypto_context

ROOT = Path(__file__).parents[2]
INPUTS = [
    path
    for directory in (
        "test/filecheck/passes/lower-pipeline-loops",
        "test/filecheck/passes/canonicalize-io-order",
        "examples",
    )
    for path in sorted((ROOT / directory).glob("*.mlir"))
]
CHAIN = (
    "lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce"
)
CHAINS = {
    "chain": CHAIN,
    "chain+licm": CHAIN.replace("convert-scf-to-cf", "licm,convert-scf-to-cf"),
}
CHUNKS = {
    f"{path.parent.name}/{path.name}:{n}": chunk
    for path in INPUTS
    for n, chunk in enumerate(path.read_text().split("// -----"))
    if any(
        line.strip() and not line.lstrip().startswith("//")
        for line in chunk.splitlines()
    )
}
"""The `// -----` chunks of `INPUTS` that hold IR, by `<directory>/<file>:<n>`."""


REJECTED = {
    "lower-pipeline-loops/bindings.mlir:0": "stages 2, whose copies would all hold "
    "their tile in it: bind tiles in loops",
    "lower-pipeline-loops/bindings.mlir:1": "stages 3, whose copies would all hold "
    "their tile in it: bind tiles in loops",
    "lower-pipeline-loops/error-report.mlir:0": "step cannot be zero",
    "lower-pipeline-loops/errors.mlir:0": "step must be a compile-time integer constant",
    "lower-pipeline-loops/errors.mlir:1": "step cannot be zero",
    "lower-pipeline-loops/errors.mlir:2": "negative steps are not supported",
    "lower-pipeline-loops/errors.mlir:3": "step must be a compile-time integer constant",
    "lower-pipeline-loops/errors.mlir:4": "pypto.pipeline_membership must be a "
    "#pypto.membership attribute, got 3 : i64",
    "lower-pipeline-loops/limits.mlir:0": "lowering would create 5050 copies",
    "lower-pipeline-loops/limits.mlir:1": "lowering would create 1000000 copies",
    "lower-pipeline-loops/limits.mlir:2": "lowering would create 10000 copies",
    "lower-pipeline-loops/limits.mlir:3": "stages * step = 4 * 4611686018427387904 = "
    "18446744073709551616, overflows the 64-bit index type",
    "lower-pipeline-loops/out-of-bounds.mlir:0": "pypto.tile.load of %x out of "
    "bounds: window [-1, 0)",
    "lower-pipeline-loops/out-of-bounds.mlir:1": "pypto.tile.store of %out out of "
    "bounds: window [8, 10)",
    "lower-pipeline-loops/out-of-bounds.mlir:2": "pypto.tile.read of %t out of "
    "bounds: index 4",
    "lower-pipeline-loops/out-of-bounds.mlir:3": "pypto.tile.load of %x out of "
    "bounds: window [8, 9)",
    "lower-pipeline-loops/out-of-bounds.mlir:4": "pypto.tile.load of %x out of "
    "bounds: window [6, 8)",
    "lower-pipeline-loops/remainder-loop-limits.mlir:0": "lowering would create "
    "5050 copies",
}
"""The chunks the chain's first pass rejects, each with a part of its message."""


def _parsed(chunk: str) -> tuple[Context, ModuleOp]:
    ctx = pypto_context()
    ctx.load_dialect(test_dialect.Test)
    return ctx, Parser(ctx, chunk).parse_module()


def _passes(chain: str) -> tuple[ModulePass, ...]:
    return PassPipeline.parse_spec(Universe.get_multiverse().all_passes, chain).passes


@pytest.mark.parametrize(
    ("chunk", "message"),
    [
        pytest.param(CHUNKS[name], message, id=name)
        for name, message in REJECTED.items()
    ],
)
def test_first_pass_rejects_the_listed_chunks(chunk: str, message: str):
    ctx, module = _parsed(chunk)
    with pytest.raises(DiagnosticException, match=re.escape(message)):
        apply_checked(_passes(CHAIN)[0], ctx, module)


@pytest.mark.parametrize("chain", CHAINS.values(), ids=CHAINS.keys())
@pytest.mark.parametrize(
    "chunk",
    [
        pytest.param(chunk, id=name)
        for name, chunk in CHUNKS.items()
        if name not in REJECTED
    ],
)
def test_chain_keeps_the_ir_sound(chunk: str, chain: str):
    ctx, module = _parsed(chunk)
    for pass_ in _passes(chain):
        if pass_.name == "convert-scf-to-cf" and any(
            op.regions and not isinstance(op, func.FuncOp) for op in module.ops
        ):
            return  # control flow outside functions: cf needs a function's region
        apply_checked(pass_, ctx, module)
