"""
Both passes, then upstream lowerings and cleanups, on every lit input.

Each `// -----` chunk of the lit inputs of both passes, and each example, goes
through `CHAIN` (and `CHAIN` with `licm` while loops remain) in one process,
on one in-memory module, with `check_integrity` after every pass: what
`xdsl-opt` prints can be sound while the in-memory IR is not, and only a later
pass in the same process sees it. Chunks that exist to fail the first pass
(with a diagnostic) are skipped, and so is the rest of the chain, from
`convert-scf-to-cf` on, for chunks with loops outside functions (the blocks
it makes cannot go in a module).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from ir_integrity import apply_checked
from xdsl.dialects import func
from xdsl.dialects import test as test_dialect
from xdsl.parser import Parser
from xdsl.passes import PassPipeline
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
CHUNKS = [
    pytest.param(chunk, id=f"{path.parent.name}/{path.name}:{n}")
    for path in INPUTS
    for n, chunk in enumerate(path.read_text().split("// -----"))
    if any(
        line.strip() and not line.lstrip().startswith("//")
        for line in chunk.splitlines()
    )
]
"""The `// -----` chunks of `INPUTS` that hold IR, named `<directory>/<file>:<n>`."""


@pytest.mark.parametrize("chain", CHAINS.values(), ids=CHAINS.keys())
@pytest.mark.parametrize("chunk", CHUNKS)
def test_chain_keeps_the_ir_sound(chunk: str, chain: str):
    if "expected-error" in chunk:
        pytest.skip("expected to fail")
    ctx = pypto_context()
    ctx.load_dialect(test_dialect.Test)
    module = Parser(ctx, chunk).parse_module()
    first, *rest = PassPipeline.parse_spec(
        Universe.get_multiverse().all_passes, chain
    ).passes
    try:
        apply_checked(first, ctx, module)
    except DiagnosticException as error:
        pytest.skip(f"{first.name} rejects it: {error}")
    for pass_ in rest:
        if pass_.name == "convert-scf-to-cf" and any(
            op.regions and not isinstance(op, func.FuncOp) for op in module.ops
        ):
            pytest.skip("control flow outside functions: cf needs a function's region")
        apply_checked(pass_, ctx, module)
