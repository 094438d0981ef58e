"""Turning a `pypto.pipeline` into the plain `scf.for` it means."""

from xdsl.dialects import scf
from xdsl.pattern_rewriter import PatternRewriter

from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.xdsl_internals import replace_by


def demote_to_scf_for(op: PipelineOp, rewriter: PatternRewriter) -> scf.ForOp:
    """
    Replace `op` by an `scf.for` with the same bounds, iter_args, body,
    discardable attributes and location; `pypto.yield` becomes `scf.yield` and the policy
    properties are dropped (`replace_by`).
    """
    terminator = op.body.block.last_op
    assert isinstance(terminator, YieldOp), "verified pipelines end in pypto.yield"
    replace_by(terminator, scf.YieldOp, {}, rewriter)
    return replace_by(op, scf.ForOp, {}, rewriter)
