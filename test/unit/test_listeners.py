"""
Every change a pass makes goes through a `PatternRewriter`, so a listener
sees it: the notifications, replayed on a shadow of the module (its ops,
and each op's operands, attributes and block), give the module the pass
leaves. Run with the fast paths and with `PYPTO_XDSL_PUBLIC=1` (CI runs
both). Our patterns also run in a user's `GreedyRewritePatternApplier`,
beside an upstream pattern.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from types import ModuleType

import pytest
from corpus import parsed, sound_inputs
from ir_integrity import check_integrity
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriterListener,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import DiagnosticException

import passes.canonicalize_io_order
import passes.lower_pipeline_loops
import passes.lower_pipeline_to_slots
from passes import (
    CanonicalizeIOOrderPass,
    LowerPipelineLoopsPass,
    LowerPipelineToSlotsPass,
    PipelineReportPass,
)
from passes.canonicalize_io_order import CanonicalizeIOOrderPattern, check_lowered
from passes.lower_pipeline_loops import LowerPipelinePattern
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPattern
from passes.schedule.engines import default_costs
from pypto_dialect.constants import constant_int
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp

_State = tuple[tuple[SSAValue, ...], dict[str, object], Block | None]


def _state(op: Operation) -> _State:
    return tuple(op.operands), dict(op.attributes), op.parent


@dataclass
class Shadow:
    """The module as the notifications tell it: its ops and their state."""

    ops: dict[Operation, _State] = field(default_factory=dict[Operation, _State])
    told: int = 0

    @staticmethod
    def of(module: ModuleOp) -> Shadow:
        return Shadow({op: _state(op) for op in module.walk() if op is not module})

    def listen(self, listener: PatternRewriterListener) -> None:
        listener.operation_insertion_handler.append(self.inserted)
        listener.operation_removal_handler.append(self.removed)
        listener.operation_modification_handler.append(self.modified)

    def rewriter(self, op: Operation) -> PatternRewriter:
        """`PatternRewriter(op)`, listened to."""
        rewriter = PatternRewriter(op)
        self.listen(rewriter)
        return rewriter

    def walker(
        self,
        pattern: RewritePattern,
        *,
        apply_recursively: bool = True,
        walk_regions_first: bool = False,
        walk_reverse: bool = False,
    ) -> PatternRewriteWalker:
        """`PatternRewriteWalker(pattern, ...)`, listened to."""
        walker = PatternRewriteWalker(
            pattern,
            walk_regions_first=walk_regions_first,
            apply_recursively=apply_recursively,
            walk_reverse=walk_reverse,
        )
        self.listen(walker.listener)
        return walker

    def inserted(self, op: Operation) -> None:
        self.told += 1
        self.ops.update({nested: _state(nested) for nested in op.walk()})

    def removed(self, op: Operation) -> None:
        self.told += 1
        for nested in op.walk():
            self.ops.pop(nested, None)

    def modified(self, op: Operation) -> None:
        self.told += 1
        self.ops[op] = _state(op)

    def assert_is(self, module: ModuleOp) -> None:
        actual = {op: _state(op) for op in module.walk() if op is not module}
        assert set(self.ops) == set(actual), "ops inserted or erased untold"
        changed = [op.name for op, state in actual.items() if self.ops[op] != state]
        assert changed == [], "ops modified or moved untold"


PIPELINES = [
    (name, module) for name, module in sound_inputs() if "pypto.pipeline" in str(module)
]

DRIVERS: list[tuple[ModulePass, ModuleType]] = [
    (LowerPipelineToSlotsPass(), passes.lower_pipeline_to_slots),
    (LowerPipelineLoopsPass(), passes.lower_pipeline_loops),
    (CanonicalizeIOOrderPass(), passes.canonicalize_io_order),
]
"""Each pass that changes the IR, and the module that makes its rewriters."""


@pytest.mark.parametrize(
    ("pass_", "home"), DRIVERS, ids=lambda d: getattr(d, "name", "")
)
def test_a_listener_sees_every_change(
    pass_: ModulePass, home: ModuleType, monkeypatch: pytest.MonkeyPatch
):
    ctx = pypto_context(allow_unregistered=True)
    lowered = 0
    for _, original in PIPELINES:
        module = original.clone()
        if isinstance(pass_, CanonicalizeIOOrderPass):
            try:  # its input: no stages > 1
                LowerPipelineLoopsPass().apply(ctx, module)
            except DiagnosticException:
                continue  # a case of an error test of the lowering
        shadow = Shadow.of(module)
        with monkeypatch.context() as patch:
            for name, make in (
                ("PatternRewriter", shadow.rewriter),
                ("PatternRewriteWalker", shadow.walker),
            ):
                patch.setattr(home, name, make)
            try:
                pass_.apply(ctx, module)
            except DiagnosticException:
                assert shadow.told == 0  # diagnosed before any change
                continue
        shadow.assert_is(module)
        check_integrity(module)
        lowered += shadow.told > 0
    assert lowered > 0


def test_the_report_changes_nothing():
    ctx = pypto_context(allow_unregistered=True)
    for _, original in PIPELINES[:10]:
        module = original.clone()
        PipelineReportPass().apply(ctx, module)
        assert module.is_structurally_equivalent(original)


def _adds_zero(op: Operation) -> bool:
    """Whether `op` is an `arith.addi` of the constant 0."""
    return isinstance(op, arith.AddiOp) and constant_int(op.rhs) == 0


class _FoldAddZero(RewritePattern):
    """An upstream-style pattern: `x + 0` is `x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: arith.AddiOp, rewriter: PatternRewriter) -> None:
        if _adds_zero(op):
            rewriter.replace(op, (), (op.lhs,))


ADD_ZERO_IN_A_PIPELINE = """
func.func @k(%a: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %j = arith.addi %i, %c0 : index
    %t = pypto.tile.load %a[%j] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
"""


def test_our_pattern_runs_in_a_user_s_applier_beside_theirs():
    """`LowerPipelinePattern` in a greedy applier with a fold: both apply, told."""
    module = parsed(ADD_ZERO_IN_A_PIPELINE)
    assert any(_adds_zero(op) for op in module.walk())
    shadow = Shadow.of(module)
    applier = GreedyRewritePatternApplier([_FoldAddZero(), LowerPipelinePattern()])
    walker = PatternRewriteWalker(applier, walk_regions_first=True)
    shadow.listen(walker.listener)
    walker.rewrite_module(module)
    shadow.assert_is(module)
    check_integrity(module)
    ops = list(module.walk())
    assert not any(_adds_zero(op) for op in ops)
    pipelines = [op for op in ops if isinstance(op, PipelineOp)]
    assert pipelines and all(op.num_stages == 1 for op in pipelines)


def _user_walker(
    pattern: RewritePattern, *, regions_first: bool
) -> PatternRewriteWalker:
    """A user's walker: our pattern beside theirs, once per op, no DCE."""
    applier = GreedyRewritePatternApplier([pattern, _FoldAddZero()], dce_enabled=False)
    return PatternRewriteWalker(
        applier, apply_recursively=False, walk_regions_first=regions_first
    )


def _slots(module: ModuleOp) -> None:
    pattern = LowerPipelineToSlotsPattern(default_costs().capacities)
    _user_walker(pattern, regions_first=False).rewrite_module(module)


def _lower(module: ModuleOp) -> None:
    _user_walker(LowerPipelinePattern(), regions_first=True).rewrite_module(module)


def _canonicalize(module: ModuleOp) -> None:
    # The module-wide check first, as `docs/embedding.md` tells.
    check_lowered([op for op in module.walk() if isinstance(op, PipelineOp)])
    pattern = CanonicalizeIOOrderPattern()
    _user_walker(pattern, regions_first=True).rewrite_module(module)


USER_WALKS: list[tuple[ModulePass, Callable[[ModuleOp], None]]] = [
    (LowerPipelineToSlotsPass(), _slots),
    (LowerPipelineLoopsPass(), _lower),
    (CanonicalizeIOOrderPass(), _canonicalize),
]


@pytest.mark.parametrize(
    ("pass_", "walk"), USER_WALKS, ids=lambda d: getattr(d, "name", "")
)
def test_our_patterns_in_a_user_s_walker_give_the_pass_s_module(
    pass_: ModulePass, walk: Callable[[ModuleOp], None]
):
    ctx = pypto_context(allow_unregistered=True)
    compared = 0
    for _, original in PIPELINES:
        module = original.clone()
        if isinstance(pass_, CanonicalizeIOOrderPass):
            try:  # its input: no stages > 1
                LowerPipelineLoopsPass().apply(ctx, module)
            except DiagnosticException:
                continue
        if any(_adds_zero(op) for op in module.walk()):
            continue  # the fold would make the modules differ
        expected = module.clone()
        try:
            pass_.apply(ctx, expected)
        except DiagnosticException:
            continue  # the pass's module-wide checks decline it
        walk(module)
        assert module.is_structurally_equivalent(expected)
        compared += 1
    assert compared > 0
