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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, ModuleOp, StringAttr, i64
from xdsl.ir import Operation, SSAValue, Use
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from passes.diagnostics import cost_model
from passes.explain import printed_name, printed_names
from passes.mechanisms.demote import demote_to_scf_for
from passes.mechanisms.walker import rewrite
from passes.slots_policy import (
    Decline,
    SlotBudget,
    check_loop,
    declarations,
    slot_candidates,
)
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.collector import collector_paused
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import LoadOp
from pypto_dialect.types import AllocType, MemorySpace, MemorySpaceAttr, TileType
from pypto_dialect.unique_names import UniqueNames
from pypto_dialect.walks import ancestors, outer_ops_first

_NOT_IN_NAMES = re.compile(r"[^A-Za-z0-9_]", re.ASCII)


@dataclass(frozen=True)
class _Explanation:
    """
    What `explain` says of one loop: the gate that declined it, or the loads
    it rotates; worded once the module is done, as the printer names values.
    """

    function: str
    induction_var: SSAValue
    """Of the loop (a rotated loop is gone; its body, and this, stay)."""
    stages: int
    decline: Decline | None
    loads: Sequence[LoadOp]

    def render(self, names: Mapping[SSAValue, str]) -> str:
        """`lower-pipeline-to-slots: @f: pypto.pipeline over %i, stages F: ...`."""
        loop = f"{PipelineOp.name} over {printed_name(self.induction_var, names)}"
        head = (
            f"lower-pipeline-to-slots: @{self.function}: {loop}, stages {self.stages}"
        )
        if self.decline is not None:
            return (
                f"{head}: declined by gate {self.decline.gate.value}: "
                f"{self.decline.detail} (at {_describe(self.decline.op, names)})"
            )
        return (
            f"{head}: {len(self.loads)} load(s) rotate through {self.stages} slots "
            "each: " + ", ".join(_describe(load, names) for load in self.loads)
        )


def _describe(op: Operation, names: Mapping[SSAValue, str]) -> str:
    """`pypto.pipeline over %i`, `pypto.tile.load %t`: an op, for `explain`."""
    if isinstance(op, PipelineOp):
        return f"{op.name} over {printed_name(op.induction_var, names)}"
    results = ", ".join(printed_name(result, names) for result in op.results)
    return op.name + (f" {results}" if results else "")


def _not_by(op: Operation) -> Callable[[Use], bool]:
    """Whether a use is not by `op`."""
    return lambda use: use.operation is not op


@dataclass
class _FunctionLowering:
    """The rotations of one function's pipelines, outer loops first."""

    function: func.FuncOp
    budget: SlotBudget
    explain: bool
    rewriter: PatternRewriter
    """Every change goes through it, so its listeners see each."""
    explanations: list[_Explanation] = field(default_factory=list[_Explanation])
    """Per loop with stages > 1, when `explain` asks for them."""

    def __post_init__(self) -> None:
        self.names = UniqueNames(
            {declaration.label for declaration in declarations(self.function)}
        )
        """The allocation names taken in the function."""
        self.declared: list[AllocOp] = []
        """The allocations declared for the rotations, in order."""

    def decide(self) -> list[tuple[PipelineOp, Decline | list[LoadOp]]]:
        """
        Per pipeline with stages > 1, outer loops first: the gate that
        declines it, or the loads it rotates (pinned in the budget). Changes
        no IR: a rotation binds only its own loop's loads, so deciding every
        loop first decides as rotating each in turn would.
        """
        decisions: list[tuple[PipelineOp, Decline | list[LoadOp]]] = []
        declined: set[PipelineOp] = set()
        for loop in outer_ops_first(self.function):
            if not isinstance(loop, PipelineOp) or loop.num_stages == 1:
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
            decisions.append((loop, decision))
        return decisions

    def run(self) -> None:
        for loop, decision in self.decide():
            if isinstance(decision, Decline):
                self._report(loop, decision, ())
                continue
            self._report(loop, None, decision)
            self._rotate(loop, decision)
        if not self.declared:
            return
        entry = self.function.body.blocks.first  # it dominates every block
        if entry is not None and entry.first_op is not None:
            self.rewriter.insert(self.declared, InsertPoint.before(entry.first_op))

    def _report(
        self, loop: PipelineOp, decline: Decline | None, loads: Sequence[LoadOp]
    ) -> None:
        """Keep what `explain` says of `loop`, if it asks."""
        if not self.explain:
            return
        self.explanations.append(
            _Explanation(
                self.function.sym_name.data,
                loop.induction_var,
                loop.num_stages,
                decline,
                loads,
            )
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
        self.rewriter.insert([count, slot], InsertPoint.before(body.first_op))
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
            # `create`: the operands and types are those the gates checked.
            binding = BindOp.create(
                operands=[loaded, declaration.results[0], slot_index],
                result_types=[tile],
            )
            bound = binding.results[0]
            bound.name_hint = loaded.name_hint
            self.rewriter.insert(binding, InsertPoint.after(load))
            self.rewriter.replace_uses_with_if(loaded, bound, _not_by(binding))
        demote_to_scf_for(loop, self.rewriter)

    def _declare(
        self, hint: str | None, alloc_type: AllocType, slots: IntegerAttr[I64]
    ) -> AllocOp:
        """A new allocation named after the tile (`hint`): `pipe_<tile>`, unique."""
        stem = "pipe_" + _NOT_IN_NAMES.sub("_", hint or "load")
        name = self.names.unique(stem)
        declaration = AllocOp.create(
            result_types=[alloc_type],
            properties={"alloc_name": StringAttr(name), "slots": slots},
        )
        declaration.result.name_hint = name
        self.declared.append(declaration)
        return declaration


def slot_declines(
    module: ModuleOp, capacities: Mapping[MemorySpace, int]
) -> dict[PipelineOp, Decline]:
    """
    The pipelines of `module` the pass would decline, with the gate that
    declines each (the capacities of its cost table); changes nothing.
    """
    return {
        loop: decision
        for function in outer_ops_first(module)
        if isinstance(function, func.FuncOp)
        for loop, decision in _FunctionLowering(
            function,
            SlotBudget.of_function(function, capacities),
            explain=False,
            rewriter=PatternRewriter(function),
        ).decide()
        if isinstance(decision, Decline)
    }


@dataclass(frozen=True)
class LowerPipelineToSlotsPattern(RewritePattern):
    """
    Rotate the loads of the pipeline loops of a `func.func` through slots
    (`LowerPipelineToSlotsPass`); apply it once per function.
    """

    capacities: Mapping[MemorySpace, int]
    """The capacities of the cost table, which bound the slots."""
    explain: bool = False
    """Record in `explanations` what is done to each pipeline with stages > 1."""
    explanations: list[_Explanation] = field(default_factory=list[_Explanation])
    """Per loop, in the order decided; the pass prints them when done."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.FuncOp, rewriter: PatternRewriter) -> None:
        budget = SlotBudget.of_function(op, self.capacities)
        lowering = _FunctionLowering(op, budget, self.explain, rewriter)
        lowering.run()
        self.explanations.extend(lowering.explanations)


@dataclass(frozen=True)
class LowerPipelineToSlotsPass(ModulePass):
    """
    Rotate the loads of pipeline loops through slots, keeping one body.

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
    the gate that declined it and the op that tripped it (values named as in
    the printed output).
    """

    costs: str = ""
    """
    The cost table (JSON, as `pypto-report --costs`) whose capacities bound
    the slots; empty: the bundled one.
    """

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        capacities = cost_model(self.name, self.costs).capacities
        pattern = LowerPipelineToSlotsPattern(capacities, self.explain)
        with collector_paused():  # see pypto_dialect.collector
            # Outer functions first, as the pattern needs nothing else first.
            functions = [f for f in outer_ops_first(op) if isinstance(f, func.FuncOp)]
            walker = PatternRewriteWalker(pattern, apply_recursively=False)
            rewrite(walker, op, functions)
        if explanations := pattern.explanations:
            # Named as the module printed now shows them (`printed_names`).
            names = printed_names(op)
            text = "\n".join(e.render(names) for e in explanations)
            print(text, file=sys.stderr)
