"""
`order=engine` and `order=modelled` keep every dependence, on generated
kernels (`bench.kernels.strategies.kernels()`) through `lower-pipeline-loops`:

* the independent legality check (`legality.py`) finds no conflicting memory
  accesses reordered, and the interpreter's outputs are bit-identical to the
  lowered kernel's for random inputs;
* the output verifies, its use lists are sound, and the pass is idempotent
  (`test_properties.check_output`);

and on every lowered lit input and example, every edge of the dependence
graph of every block they reorder holds in the output.
"""

from __future__ import annotations

import pytest
from differential import CONTEXT, NONE, SEEDS, Run, check_output, lower
from helpers import LOWERED_CORPUS
from hypothesis import given, settings
from ir_integrity import apply_checked
from legality import reorder_violations
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.analysis import DependenceGraph
from passes.canonicalize_io_order import CanonicalizeIOOrderPass, OrderName
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import closest

pytestmark = pytest.mark.slow

BUDGET = (
    settings(max_examples=40)
    if settings.get_current_profile_name() == "ci"
    else settings()
)
"""40 kernels per order in CI (each is run three times), else the profile's count."""


@pytest.mark.parametrize("order", ["engine", "modelled"])
@BUDGET
@given(kernels(), SEEDS)
def test_order_keeps_every_dependence(
    order: OrderName, kernel: GeneratedKernel, seed: int
):
    run = Run(kernel, seed)
    lower(run, round_trip=False)
    reorder = CanonicalizeIOOrderPass(order=order)
    assert run.apply(reorder, reorder_violations) == NONE
    check_output(reorder, run.module, round_trip=True)


def _edges(module: ModuleOp) -> list[tuple[Operation, Operation]]:
    """Every dependence edge of every block the pass reorders, as op pairs."""
    return [
        (graph.ops[source], graph.ops[target])
        for op in module.walk()
        if op.regions and closest(op, PipelineOp) is not None
        for region in op.regions
        for block in region.blocks
        for graph in (DependenceGraph.build(block),)
        for target in range(len(graph.ops))
        for source in graph.predecessor_indices(target)
    ]


def _current(op: Operation, bodies: dict[Operation, Block]) -> Operation:
    """`op`, or the `scf.for` that replaced it, a demoted pipeline, with its body."""
    if op.parent is not None:
        return op
    replacement = bodies[op].parent_op()
    assert replacement is not None
    return replacement


@pytest.mark.parametrize("order", ["engine", "modelled"])
@pytest.mark.parametrize("module", LOWERED_CORPUS)
def test_order_keeps_every_edge_on_the_corpus(order: OrderName, module: ModuleOp):
    """On every lowered lit input and example, each edge of the graph holds after."""
    module = module.clone()
    edges = _edges(module)
    bodies: dict[Operation, Block] = {
        op: op.body.block for op in module.walk() if isinstance(op, PipelineOp)
    }
    apply_checked(CanonicalizeIOOrderPass(order=order), CONTEXT, module)
    for earlier, later in edges:
        source, target = _current(earlier, bodies), _current(later, bodies)
        block = source.parent
        assert block is not None and target.parent is block
        assert block.get_operation_index(source) < block.get_operation_index(target)
