"""
The dependence graph of one block: which top-level ops must stay before which.

Edges go from an earlier op A to a later op B of the block (its terminator
excluded):

* SSA: B, or an op nested in B, uses a result of A.
* Memory: A and B, or ops nested in them, access the same memory, at least one
  of them writes, and their windows are not provably disjoint; an op with
  unknown effects is a barrier ordered against every memory access
  (`summaries.py` says what each op accesses, the slots of declared
  allocations included, `frontier.py` finds the conflicts).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from xdsl.dialects.builtin import UnregisteredOp
from xdsl.ir import Block, Operation, OpResult, SSAValue
from xdsl.traits import IsTerminator

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.frontier import BlockWrites, MemoryFrontier
from passes.analysis.summaries import (
    CLASS_EFFECTS_OF,
    ClassEffects,
    MemoryAccess,
    OpSummaries,
    class_effects,
)
from pypto_dialect.effects import TensorWindowAccess
from pypto_dialect.xdsl_internals import block_ops, operands


class DependenceGraph:
    """
    The dependence DAG of the top-level ops of a block (terminator excluded).
    Every edge goes forward in program order; `predecessors` gives the reasons.
    """

    block: Block
    ops: tuple[Operation, ...]
    num_comparisons: int
    """Candidate pairs examined for memory conflicts: the cost of the build."""

    def __init__(self, block: Block, ops: Sequence[Operation]):
        self.block = block
        self.ops = tuple(ops)
        self.num_comparisons = 0
        # By `id`: xDSL hashes ops in Python, and the build looks up the
        # owner of every operand. The ops are kept alive in `ops`.
        self._index = {id(op): index for index, op in enumerate(self.ops)}
        self._predecessors: list[dict[int, list[Dependence]]] = [{} for _ in ops]
        self._successors: list[list[int]] = [[] for _ in ops]

    @classmethod
    def build(
        cls, block: Block, summaries: OpSummaries | None = None
    ) -> DependenceGraph:
        """
        The SSA and memory dependences among the top-level ops of `block`;
        share `summaries` to analyse the blocks of a nest inside out.
        """
        graph = cls(block, schedulable_ops(block))
        summaries = summaries if summaries is not None else OpSummaries()
        frontier = MemoryFrontier(graph.add_edge)
        source_of, add_edge = graph._index.get, graph.add_edge
        ssa = DependenceKind.SSA
        visited = visited_accesses(block, graph.ops, summaries)
        for index, op in enumerate(graph.ops):
            # Region-free ops: their operands (a repeated one adds no edge
            # twice), as xDSL's tuple (its `operands` view costs two calls).
            for value in summaries.uses(op) if op.regions else operands(op):
                # Only results have their op in the index (`.op`: `.owner`
                # is a property call).
                if type(value) is not OpResult:
                    continue
                source = source_of(id(value.op))
                if source is not None and source < index:
                    # `tuple.__new__`: the named tuple's `__new__` is a Python call.
                    add_edge(
                        source,
                        index,
                        tuple.__new__(Dependence, (ssa, value, None)),  # pyright: ignore[reportUnknownMemberType]
                    )
            if (accesses := visited[index]) != ():
                frontier.visit(index, accesses)
        graph.num_comparisons = frontier.num_comparisons
        return graph

    def add_edge(self, source: int, target: int, reason: Dependence) -> None:
        """Record that op `target` must stay after op `source` (indices in `ops`)."""
        reasons = self._predecessors[target].get(source)
        if reasons is None:
            self._predecessors[target][source] = [reason]
            self._successors[source].append(target)
        elif reason not in reasons:
            reasons.append(reason)

    def index(self, op: Operation) -> int:
        return self._index[id(op)]

    def predecessor_indices(self, index: int) -> Mapping[int, Sequence[Dependence]]:
        return self._predecessors[index]

    def successor_indices(self, index: int) -> Sequence[int]:
        return self._successors[index]

    def in_degrees(self) -> list[int]:
        """The number of direct predecessors of each op."""
        return [len(sources) for sources in self._predecessors]

    def all_successor_indices(self) -> Sequence[Sequence[int]]:
        """`successor_indices` of every op, by index (one call for a whole schedule)."""
        return self._successors

    def predecessors(self, op: Operation) -> dict[Operation, tuple[Dependence, ...]]:
        """The ops `op` depends on directly, with the reasons."""
        return {
            self.ops[source]: tuple(reasons)
            for source, reasons in self._predecessors[self._index[id(op)]].items()
        }

    def successors(self, op: Operation) -> tuple[Operation, ...]:
        """The ops that depend directly on `op`."""
        return tuple(
            self.ops[target] for target in self._successors[self._index[id(op)]]
        )

    @property
    def num_edges(self) -> int:
        return sum(len(sources) for sources in self._predecessors)


def schedulable_ops(block: Block) -> list[Operation]:
    """
    The ops of `block` that may be reordered: all but a last op that is (or,
    being unregistered, may be) a terminator.
    """
    ops = block_ops(block)
    if ops and (ops[-1].has_trait(IsTerminator) or isinstance(ops[-1], UnregisteredOp)):
        ops.pop()
    return ops


def visited_accesses(
    block: Block, ops: Sequence[Operation], summaries: OpSummaries
) -> list[Sequence[MemoryAccess] | None]:
    """
    The accesses the frontier visits for each of `ops` (ops of `block`, in
    program order), None for unknown effects: () for an op whose accesses
    conflict with nothing among `ops`, the window reads no write may touch
    left out (their accesses, and windows, not even computed), also where
    they are nested in an op (its `Outline`).
    """
    read_tensors: list[tuple[SSAValue, ...]] = []
    found: list[Sequence[MemoryAccess] | None] = []
    writes = BlockWrites()
    slots = summaries.slots_in(block)
    for op in ops:
        effects = CLASS_EFFECTS_OF(type(op)) or class_effects(type(op))
        if slots and effects is not ClassEffects.OTHER and summaries.slot_accesses(op):
            effects = ClassEffects.OTHER  # what its class says, and its slots
        if effects is ClassEffects.OTHER:
            outline = summaries.outline(op) if op.regions else None
            accesses = summaries.accesses(op) if outline is None else outline.accesses
            if accesses != ():
                writes.add(accesses)
            found.append(accesses)
            read_tensors.append(() if outline is None else outline.read_tensors)
        else:
            found.append(())
            read_tensors.append(
                (cast(TensorWindowAccess, op).accessed_tensor,)
                if effects is ClassEffects.WINDOW_READ
                else ()
            )
    for index, op in enumerate(ops):
        tensors = read_tensors[index]
        if tensors and any(map(writes.may_write, tensors)):
            found[index] = summaries.accesses(op)
    return found
