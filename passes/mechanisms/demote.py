"""Turning a `pypto.pipeline` into the plain `scf.for` it means."""

from xdsl.dialects import scf
from xdsl.ir import Operation
from xdsl.ir.core import OpT
from xdsl.pattern_rewriter import PatternRewriter

from passes.mechanisms.cloning import transplant
from pypto_dialect.pipeline import PipelineOp, YieldOp


def demote_to_scf_for(op: PipelineOp, rewriter: PatternRewriter) -> scf.ForOp:
    """
    Replace `op` by an `scf.for` with the same bounds, iter_args, body,
    discardable attributes and location; `pypto.yield` becomes `scf.yield` and the policy
    properties are dropped. The new ops take over the old ones' operands,
    results and body (`transplant`): every use stays where it is.
    """
    terminator = op.body.block.last_op
    assert isinstance(terminator, YieldOp), "verified pipelines end in pypto.yield"
    _replaced(terminator, transplant(terminator, scf.YieldOp, {}), rewriter)
    return _replaced(op, transplant(op, scf.ForOp, {}), rewriter)


def _replaced(old: Operation, new: OpT, rewriter: PatternRewriter) -> OpT:
    """
    Tell the rewriter's listeners that `new` replaced `old`, in the order of
    its `replace` (insertion, replacement, removal); `old` is already empty.
    """
    rewriter.has_done_action = True
    rewriter.handle_operation_insertion(new)
    rewriter.handle_operation_replacement(old, new.results)
    rewriter.handle_operation_removal(old)
    return new
