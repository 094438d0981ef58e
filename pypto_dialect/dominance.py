"""
SSA dominance, which xDSL's verifier does not check: every operand must be
defined before its use, earlier in its block or in a block that dominates or
encloses it. Without the check, a use before its definition verifies and
only fails later (a `KeyError` of the interpreter, a pass output that does
not verify).

`DominanceWalk` checks regions in one walk, without recursion (nests may be
deeper than Python's stack), in time linear in the ops and blocks, plus the
dominator trees of regions with several blocks (`immediate_dominators`,
Lengauer and Tarjan's algorithm: near-linear). As in MLIR, the ops directly
in a block that the entry cannot reach, or in a graph region (the body of a
`builtin.module`), may use any value of their region in any order.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import Enum, auto
from typing import NamedTuple

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue

from pypto_dialect.xdsl_internals import block_ops, operands


class DominanceViolation(NamedTuple):
    """Operand `operand_index` of `op` is not defined where `op` can see it."""

    op: Operation
    operand_index: int

    def describe(self, whose: str = "") -> str:
        """The message: `operand #i (%name){whose} is not defined before ...`."""
        index = self.operand_index
        operand = self.op.operands[index]
        name = "" if operand.name_hint is None else f" (%{operand.name_hint})"
        return (
            f"operand #{index}{name}{whose} is not defined before its use in a "
            "block that encloses it"
        )


def immediate_dominators(entry: Block) -> dict[Block, Block]:
    """
    The immediate dominator of every block reachable from `entry` (the
    entry maps to itself), by Lengauer and Tarjan's algorithm with path
    compression: O(E log V) for E edges between V blocks.
    """
    order: list[Block] = []  # the blocks in depth-first preorder
    number: dict[Block, int] = {}
    parent: list[int] = []
    stack: list[tuple[Block, int]] = [(entry, 0)]
    while stack:
        block, from_number = stack.pop()
        if block in number:
            continue
        number[block] = len(order)
        order.append(block)
        parent.append(from_number)
        terminator = block.last_op
        successors = () if terminator is None else terminator.successors
        stack.extend(
            (s, number[block]) for s in reversed(successors) if s not in number
        )
    predecessors: list[list[int]] = [[] for _ in order]
    for block in order:
        terminator = block.last_op
        for successor in () if terminator is None else terminator.successors:
            if successor in number:
                predecessors[number[successor]].append(number[block])

    count = len(order)
    semi = list(range(count))
    label = list(range(count))
    ancestor = [-1] * count
    idom = [0] * count
    bucket: list[list[int]] = [[] for _ in order]

    def evaluate(v: int) -> int:
        """The vertex of least `semi` on the forest path above `v` (compressed)."""
        if ancestor[v] < 0:
            return v
        path: list[int] = []
        node = v
        while ancestor[ancestor[node]] >= 0:
            path.append(node)
            node = ancestor[node]
        for node in reversed(path):
            above = ancestor[node]
            if semi[label[above]] < semi[label[node]]:
                label[node] = label[above]
            ancestor[node] = ancestor[above]
        return label[v]

    for w in range(count - 1, 0, -1):
        for v in predecessors[w]:
            semi[w] = min(semi[w], semi[evaluate(v)])
        bucket[semi[w]].append(w)
        ancestor[w] = parent[w]
        for v in bucket[parent[w]]:
            u = evaluate(v)
            idom[v] = u if semi[u] < semi[v] else parent[w]
        bucket[parent[w]].clear()
    for w in range(1, count):
        if idom[w] != semi[w]:
            idom[w] = idom[idom[w]]
    return {block: order[idom[number[block]]] for block in order}


class _Step(Enum):
    """What the walk does next."""

    REGION = auto()
    """Enter a region (its entry block, or its dominator tree)."""
    BLOCK = auto()
    """Walk a block from its first op."""
    RESUME = auto()
    """Define the results of an op whose regions are done, walk on after it."""
    LEAVE_BLOCK = auto()
    """Hide what a block defined, once the blocks it dominates are done."""
    UNORDERED = auto()
    """Walk the regions of the ops of a block whose order does not matter."""
    SHOW = auto()
    HIDE = auto()
    """Make values visible, or no longer."""


_Work = tuple[_Step, Region | Block | Operation | tuple[SSAValue, ...]]


def _defined_in(block: Block) -> tuple[SSAValue, ...]:
    """The arguments of `block` and the results of its ops."""
    return (*block.args, *(result for op in block_ops(block) for result in op.results))


class DominanceWalk:
    """
    Checks that the definition of every operand dominates its use, in the
    regions given to `first_violation`; values that they do not define count
    as defined if `defined_outside` says so. With `record`, the walk keeps
    the ops it saw (`ops`, by `id`) and the values they define (`values`).
    """

    def __init__(
        self, defined_outside: Callable[[SSAValue], bool], *, record: bool = False
    ):
        self.defined_outside = defined_outside
        self.record = record
        self.ops: set[int] = set()
        self.values: list[SSAValue] = []
        # Values by `id` (xDSL hashes them in Python): all stay alive, in the
        # IR, for the whole walk.
        self._visible: set[int] = set()
        self._children: dict[Block, list[Block]] = {}
        """The blocks each block of a multi-block region immediately dominates."""
        self._work: list[_Work] = []

    def first_violation(self, regions: Sequence[Region]) -> DominanceViolation | None:
        """The first use, in program order, that its definition does not dominate."""
        work, visible = self._work, self._visible
        work.extend((_Step.REGION, region) for region in reversed(regions))
        while work:
            step, item = work.pop()
            if step is _Step.BLOCK:
                assert isinstance(item, Block)
                visible.update(map(id, item.args))
                if self.record:
                    self.values.extend(item.args)
                violation = self._walk(item, item.first_op)
            elif step is _Step.RESUME:
                assert isinstance(item, Operation)
                visible.update(map(id, item.results))
                block = item.parent
                assert block is not None
                violation = self._walk(block, item.next_op)
            elif step is _Step.LEAVE_BLOCK:
                assert isinstance(item, Block)
                visible.difference_update(map(id, _defined_in(item)))
                continue
            elif step is _Step.REGION:
                assert isinstance(item, Region)
                self._enter_region(item)
                continue
            elif step is _Step.UNORDERED:
                assert isinstance(item, Block)
                self._enter_unordered(item)
                continue
            else:
                assert isinstance(item, tuple)
                if step is _Step.SHOW:
                    visible.update(map(id, item))
                else:
                    visible.difference_update(map(id, item))
                continue
            if violation is not None:
                return violation
        return None

    def _walk(self, block: Block, op: Operation | None) -> DominanceViolation | None:
        """
        Check the ops of `block` from `op` on, until one with regions (which
        are walked before the ops after it), or the end of the block (then
        the blocks it immediately dominates are walked).
        """
        visible, outside, record = self._visible, self.defined_outside, self.record
        while op is not None:
            for index, operand in enumerate(operands(op)):
                if id(operand) not in visible and not outside(operand):
                    return DominanceViolation(op, index)
            if record:
                self.ops.add(id(op))
                self.values.extend(op.results)
            if op.regions:
                self._work.append((_Step.RESUME, op))
                self._work.extend((_Step.REGION, r) for r in reversed(op.regions))
                return None
            visible.update(map(id, op.results))
            op = op.next_op
        self._work.append((_Step.LEAVE_BLOCK, block))
        children = self._children.pop(block, ())
        self._work.extend((_Step.BLOCK, child) for child in reversed(children))
        return None

    def _enter_unordered(self, block: Block) -> None:
        """The ops of `block`, unchecked (see `_enter_region`); their regions are walked."""
        if self.record:
            self.values.extend(_defined_in(block))
        for op in reversed(block_ops(block)):
            if self.record:
                self.ops.add(id(op))
            self._work.extend((_Step.REGION, r) for r in reversed(op.regions))

    def _enter_region(self, region: Region) -> None:
        """
        A region of one block walks it; one of several blocks walks its
        dominator tree, after the blocks the entry does not reach; those, and
        the blocks of a module's body (a graph region), see every value of
        the region, in any order.
        """
        entry = region.blocks.first
        if entry is None:
            return
        graph = isinstance(region.parent, ModuleOp)
        if entry.next_block is None and not graph:
            self._work.append((_Step.BLOCK, entry))
            return
        dominators = {} if graph else immediate_dominators(entry)
        for block, dominator in dominators.items():
            if block is not entry:
                self._children.setdefault(dominator, []).append(block)
        work = self._work
        if dominators:
            work.append((_Step.BLOCK, entry))
        unordered = [block for block in region.blocks if block not in dominators]
        if unordered:
            everything = tuple(
                value for block in region.blocks for value in _defined_in(block)
            )
            work.append((_Step.HIDE, everything))
            work.extend((_Step.UNORDERED, block) for block in reversed(unordered))
            work.append((_Step.SHOW, everything))
