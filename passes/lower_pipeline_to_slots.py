"""
The `lower-pipeline-to-slots` pass (PyPTO's LowerPipelineToSlots): a
`pypto.pipeline ... stages F` keeps one body, each load at the top level of
the body takes slot `iv % F` of an allocation of F slots of its own, and the
loop becomes the `scf.for` it means. No code grows with F, and there is no
remainder. A loop the gates decline (`slots_policy.py`) stays a pipeline,
whole, for `lower-pipeline-loops` to replicate: run this pass before it.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import PatternRewriter

from passes.collector import collector_paused
from passes.demote import demote_to_scf_for
from passes.diagnostics import cost_model
from passes.slots_policy import (
    Decline,
    SlotBudget,
    check_loop,
    declarations,
    slot_candidates,
)
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import LoadOp
from pypto_dialect.types import AllocType, MemorySpaceAttr, TileType
from pypto_dialect.walks import ancestors, outer_ops_first

_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_]", re.ASCII)


def _describe(op: Operation) -> str:
    """`pypto.pipeline over %i`, `pypto.tile.load %t`: an op, for `explain`."""
    if isinstance(op, PipelineOp):
        induction = op.induction_var.name_hint
        return op.name + (f" over %{induction}" if induction else "")
    names = [f"%{r.name_hint}" for r in op.results if r.name_hint is not None]
    return op.name + (f" {', '.join(names)}" if names else "")


@dataclass
class _FunctionLowering:
    """The rotations of one function's pipelines, outer loops first."""

    function: func.FuncOp
    budget: SlotBudget
    explain: bool

    def __post_init__(self) -> None:
        self.names = {declaration.label for declaration in declarations(self.function)}
        """The allocation names taken in the function."""
        self.declared: list[AllocOp] = []
        """The allocations declared for the rotations, in order."""

    def run(self) -> None:
        # Materialized first: the rewrites replace loops while it goes on.
        pipelines = [
            op for op in outer_ops_first(self.function) if isinstance(op, PipelineOp)
        ]
        declined: set[PipelineOp] = set()
        for loop in pipelines:
            if loop.num_stages == 1:
                continue  # nothing to rotate: left for canonicalize-io-order
            around = next(
                (outer for outer in ancestors(loop) if outer in declined), None
            )
            assert around is None or isinstance(around, PipelineOp)
            decision = check_loop(loop, around) or slot_candidates(loop)
            if not isinstance(decision, Decline):
                decision = self.budget.admit(loop, decision) or decision
            if isinstance(decision, Decline):
                declined.add(loop)
                if self.explain:
                    self._report(
                        loop,
                        f"declined by gate {decision.gate.value}: "
                        f"{decision.detail} (at {_describe(decision.op)})",
                    )
                continue
            self._rotate(loop, decision)
        body = self.function.body.block
        if self.declared and body.first_op is not None:
            body.insert_ops_before(self.declared, body.first_op)

    def _report(self, loop: PipelineOp, what: str) -> None:
        """The `explain` line of a loop."""
        where = f"@{self.function.sym_name.data}"
        print(
            f"lower-pipeline-to-slots: {where}: {_describe(loop)}, stages "
            f"{loop.num_stages}: {what}",
            file=sys.stderr,
        )

    def _rotate(self, loop: PipelineOp, loads: list[LoadOp]) -> None:
        """Bind each load to slot `iv % F` of an allocation of its own; demote the loop."""
        stages = loop.num_stages
        body = loop.body.block
        count = arith.ConstantOp(IntegerAttr(stages, IndexType()))
        count.result.name_hint = f"c{stages}"
        slot = arith.RemSIOp(loop.induction_var, count.result)
        slot.result.name_hint = "slot"
        assert body.first_op is not None
        body.insert_ops_before([count, slot], body.first_op)
        slots = IntegerAttr(stages, i64)
        slot_index = slot.result
        alloc_types: dict[MemorySpaceAttr, AllocType] = {}
        for load in loads:
            loaded = load.results[0]
            tile = loaded.type
            assert isinstance(tile, TileType)
            alloc_type = alloc_types.get(tile.space)
            if alloc_type is None:
                alloc_type = alloc_types[tile.space] = AllocType(tile.space)
            declaration = self._declare(loaded.name_hint, alloc_type, slots)
            uses = list(loaded.uses)
            # `create`: the operands and types are those the gates checked.
            binding = BindOp.create(
                operands=[loaded, declaration.results[0], slot_index],
                result_types=[tile],
            )
            bound = binding.results[0]
            bound.name_hint = loaded.name_hint
            body.insert_op_after(binding, load)
            for use in uses:
                use.operation.operands[use.index] = bound
        if self.explain:
            self._report(
                loop,
                f"{len(loads)} load(s) rotate through {stages} slots each: "
                + ", ".join(_describe(load) for load in loads),
            )
        demote_to_scf_for(loop, PatternRewriter(loop))

    def _declare(
        self, hint: str | None, alloc_type: AllocType, slots: IntegerAttr[I64]
    ) -> AllocOp:
        """A new allocation named after the tile (`hint`): `pipe_<tile>`, unique."""
        stem = "pipe_" + _NOT_IN_NAMES.sub("_", hint or "load")
        name, suffix = stem, 0
        while name in self.names:
            suffix += 1
            name = f"{stem}_{suffix}"
        self.names.add(name)
        declaration = AllocOp.create(
            result_types=[alloc_type],
            properties={"alloc_name": StringAttr(name), "slots": slots},
        )
        declaration.result.name_hint = name
        self.declared.append(declaration)
        return declaration


@dataclass(frozen=True)
class LowerPipelineToSlotsPass(ModulePass):
    """
    For each `pypto.pipeline ... stages F` (F > 1), outer loops first: bind
    every load at the top level of its body, that the author did not bind,
    to slot `iv % F` of an allocation of F slots of its own (declared at the
    top of the function, named `pipe_<tile>`), and demote the loop to
    `scf.for`; or, if any gate of `slots_policy` declines the loop, leave
    it, and every pipeline in it, to `lower-pipeline-loops`. Results never
    change (a binding does not change a value). Idempotent.
    """

    name = "lower-pipeline-to-slots"

    explain: bool = False
    """
    Print to stderr, per pipeline with stages > 1, the loads it rotates, or
    the gate that declined it and the op that tripped it.
    """

    costs: str = ""
    """
    The cost table (JSON, as `pypto-report --costs`) whose capacities bound
    the slots; empty: the bundled one.
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        capacities = cost_model(self.name, self.costs).capacities
        with collector_paused():  # see passes.collector
            functions = [f for f in outer_ops_first(op) if isinstance(f, func.FuncOp)]
            for function in functions:
                budget = SlotBudget.of_function(function, capacities)
                _FunctionLowering(function, budget, self.explain).run()
