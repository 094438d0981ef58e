"""
`pypto_dialect.dominance`: the dominator trees against the definition (a
dominates b when b cannot be reached from the entry without a), and the
dominance check of `verify_module`
on every kind of region: one block, nested regions, a CFG, unreachable
blocks, a module's body, nests deeper than the recursion limit.
"""

from __future__ import annotations

import sys

import pytest
from hypothesis import given
from hypothesis import strategies as st
from xdsl.dialects import test
from xdsl.dialects.builtin import ModuleOp, i32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.dominance import DominanceWalk, immediate_dominators

# --------------------------------------------------------------------------- #
# Dominator trees
# --------------------------------------------------------------------------- #


def cfg(successors: list[list[int]]) -> Region:
    """A region of one block per entry, each ending in a branch to its successors."""
    blocks = [Block() for _ in successors]
    for block, targets in zip(blocks, successors, strict=True):
        block.add_op(test.TestTermOp.create(successors=[blocks[t] for t in targets]))
    return Region(blocks)


@st.composite
def graphs(draw: st.DrawFn) -> list[list[int]]:
    size = draw(st.integers(1, 14))
    target = st.integers(0, size - 1)
    return [draw(st.lists(target, max_size=3)) for _ in range(size)]


def reached(successors: list[list[int]], avoiding: int | None = None) -> set[int]:
    """The blocks a path from block 0 reaches without passing through `avoiding`."""
    seen: set[int] = set()
    stack = [0]
    while stack:
        block = stack.pop()
        if block in seen or block == avoiding:
            continue
        seen.add(block)
        stack.extend(successors[block])
    return seen


@given(graphs())
def test_immediate_dominators_agree_with_the_definition(successors: list[list[int]]):
    blocks = list(cfg(successors).blocks)
    idom = immediate_dominators(blocks[0])
    reachable = reached(successors)
    assert {blocks.index(block) for block in idom} == reachable
    for b in reachable:
        dominators, above = {b}, blocks[b]
        while above is not blocks[0]:
            above = idom[above]
            dominators.add(blocks.index(above))
        expected = {a for a in reachable if a == b or b not in reached(successors, a)}
        assert dominators == expected, b


def test_immediate_dominators_of_a_diamond_and_a_loop():
    region = cfg([[1, 2], [3], [3], [1, 4], []])
    b = list(region.blocks)
    assert immediate_dominators(b[0]) == {
        b[0]: b[0],
        b[1]: b[0],
        b[2]: b[0],
        b[3]: b[0],
        b[4]: b[3],
    }


def test_immediate_dominators_of_a_long_chain_need_no_recursion():
    size = 3 * sys.getrecursionlimit()
    region = cfg([[i + 1] for i in range(size - 1)] + [[]])
    blocks = list(region.blocks)
    idom = immediate_dominators(blocks[0])
    assert idom[blocks[-1]] is blocks[-2]


# --------------------------------------------------------------------------- #
# The check
# --------------------------------------------------------------------------- #


def verified(source: str) -> None:
    verify_module(parse_module(pypto_context(), source))


def rejected(source: str, operand: str) -> None:
    with pytest.raises(
        VerifyException,
        match=rf"operand #\d \(%{operand}\) is not defined before its use",
    ):
        verified(source)


@pytest.mark.parametrize(
    ("source", "operand"),
    [
        (
            """
            func.func @f() {
              %a = arith.addi %b, %b : index
              %b = arith.constant 0 : index
              func.return
            }
            """,
            "b",
        ),
        (
            """
            func.func @f(%c: i1) {
              scf.if %c {
                %a = arith.addi %b, %b : index
              }
              %b = arith.constant 0 : index
              func.return
            }
            """,
            "b",
        ),
        (
            """
            func.func @f(%c: i1) {
              %r = scf.if %c -> (index) {
                scf.yield %r : index
              } else {
                %z = arith.constant 0 : index
                scf.yield %z : index
              }
              func.return
            }
            """,
            "r",
        ),
    ],
    ids=["later-in-the-block", "later-than-a-nested-region", "own-result"],
)
def test_a_use_before_its_definition(source: str, operand: str):
    rejected(source, operand)


CFG = """
func.func @f(%c: i1) -> index {{
  cf.cond_br %c, ^left, ^right
^left:
  %a = arith.constant 1 : index
  cf.br ^join(%a : index)
^right:
  %b = arith.constant 2 : index
  cf.br ^join(%b : index)
^join(%m: index):
  %r = arith.addi %m, {use} : index
  func.return %r : index
}}
"""


def test_a_cfg_uses_values_of_dominating_blocks():
    verified(CFG.format(use="%m"))


def test_a_cfg_block_using_a_value_of_a_block_that_does_not_dominate_it():
    rejected(CFG.format(use="%a"), "a")


def test_a_loop_of_blocks_uses_its_header_values():
    verified(
        """
        func.func @f(%n: index) {
          %c0 = arith.constant 0 : index
          cf.br ^head(%c0 : index)
        ^head(%i: index):
          %more = arith.cmpi slt, %i, %n : index
          cf.cond_br %more, ^body, ^exit
        ^body:
          %c1 = arith.constant 1 : index
          %next = arith.addi %i, %c1 : index
          cf.br ^head(%next : index)
        ^exit:
          func.return
        }
        """
    )


def test_unreachable_blocks_see_every_value_of_their_region():
    """As in MLIR: dominance means nothing where the entry cannot reach."""
    verified(
        """
        func.func @f() {
          %a = arith.constant 0 : index
          func.return
        ^dead:
          %b = arith.addi %c, %a : index
          %c = arith.addi %a, %a : index
          func.return
        }
        """
    )


def test_the_module_body_is_a_graph_region():
    verified(
        """
        %early = arith.addi %late, %late : index
        %late = arith.constant 0 : index
        """
    )


def test_nests_deeper_than_the_recursion_limit():
    depth = 2 * sys.getrecursionlimit()
    value = test.TestOp.create(result_types=[i32])
    innermost = test.TestOp.create(operands=[value.results[0]])
    op = innermost
    for _ in range(depth):
        op = test.TestOp.create(regions=[Region(Block([op]))])
    module = ModuleOp([op, value])
    walk = DominanceWalk(lambda _: False, record=True)
    violation = walk.first_violation([module.body.block.ops.first.regions[0]])  # pyright: ignore[reportOptionalMemberAccess]
    assert violation is not None and violation.op is innermost
    assert len(walk.ops) == depth - 1  # the nest inside the outermost op


PIPELINE_USE_BEFORE_DEFINITION = """
func.func @f(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 2 {
    pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  }
  func.return
}
"""


def test_a_pipeline_checks_its_body_for_xdsl_verify():
    """Stock `xdsl-opt` (`Operation.verify`) still sees the pipeline's own check."""
    module = parse_module(pypto_context(), PIPELINE_USE_BEFORE_DEFINITION)
    with pytest.raises(
        VerifyException,
        match=r"operand #0 \(%t\) of 'pypto.tile.store' in the body is not defined",
    ):
        module.verify()


def test_verify_module_locates_a_use_in_a_pipeline_body_at_the_user():
    rejected(PIPELINE_USE_BEFORE_DEFINITION, "t")
