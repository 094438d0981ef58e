"""
`walk_ops` and `ops_with_regions`: `Operation.walk`'s order, at a cost
independent of the nesting.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from ir_integrity import apply_checked, check_links
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region
from xdsl.parser import Parser

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import ops_with_regions, walk_ops

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


def lowered(path: Path) -> ModuleOp:
    """An example after lower-pipeline-loops: nested loops, `scf.if`s, many ops."""
    module = Parser(pypto_context(), path.read_text()).parse_module()
    apply_checked(LowerPipelineLoopsPass(), pypto_context(), module)
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
@pytest.mark.parametrize("regions_first", [False, True])
def test_same_order_as_operation_walk(path: Path, regions_first: bool):
    module = lowered(path)
    expected = list(module.walk(region_first=regions_first))
    assert list(walk_ops(module, regions_first=regions_first)) == expected


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: path.stem)
def test_ops_with_regions_in_walk_order(path: Path):
    module = lowered(path)
    expected = [op for op in module.walk(region_first=True) if op.regions]
    assert len(expected) > 1
    assert ops_with_regions(module) == expected


def test_ops_with_regions_of_an_op_without_regions():
    assert ops_with_regions(arith.ConstantOp.from_int_and_width(1, 64)) == []


def test_order_of_a_small_nest():
    module = Parser(
        pypto_context(),
        """
        func.func @f(%c: i1) {
          scf.if %c {
            %a = arith.constant 1 : index
          } else {
            %b = arith.constant 2 : index
          }
          func.return
        }
        """,
    ).parse_module()
    names = [op.name for op in walk_ops(module)]
    assert names == [
        "builtin.module",
        "func.func",
        "scf.if",
        "arith.constant",
        "scf.yield",
        "arith.constant",
        "scf.yield",
        "func.return",
    ]
    post_order = [op.name for op in walk_ops(module, regions_first=True)]
    assert post_order == [
        "arith.constant",
        "scf.yield",
        "arith.constant",
        "scf.yield",
        "scf.if",
        "func.return",
        "func.func",
        "builtin.module",
    ]


DEPTH = 3 * sys.getrecursionlimit()


def deep_nest(depth: int) -> ModuleOp:
    """`scf.if`s nested `depth` deep in `@f`, built without recursion."""
    condition = arith.ConstantOp.from_int_and_width(1, 1)
    body: list[Operation] = [scf.YieldOp()]
    for _ in range(depth):
        body = [scf.IfOp(condition, [], [Block(body)]), scf.YieldOp()]
    ops = [condition, *body[:-1], func.ReturnOp()]
    kernel = func.FuncOp("f", ((), ()), Region(Block(ops)))
    return ModuleOp([kernel])


def test_deeper_than_the_recursion_limit():
    """`Operation.walk` recurses per level; `walk_ops` does not."""
    module = deep_nest(DEPTH)
    with pytest.raises(RecursionError):
        list(module.walk())
    assert sum(1 for _ in walk_ops(module)) == 2 * DEPTH + 4
    assert sum(1 for _ in walk_ops(module, regions_first=True)) == 2 * DEPTH + 4


@pytest.mark.slow
@pytest.mark.parametrize(
    "pass_", [LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()], ids=lambda p: p.name
)
def test_passes_walk_deep_nests(
    pass_: LowerPipelineLoopsPass | CanonicalizeIOOrderPass,
):
    """
    Both passes walk the module without recursion: nesting costs them nothing
    (a lowered dynamic pipeline nests its `scf.if` cascade F deep).
    """
    module = deep_nest(DEPTH)
    pass_.apply(pypto_context(), module)
    check_links(module)  # not `verify`, which recurses
    assert sum(1 for _ in walk_ops(module)) == 2 * DEPTH + 4
