"""Turning a `pypto.pipeline` into the plain `scf.for` it means."""

from xdsl.dialects import scf
from xdsl.pattern_rewriter import PatternRewriter

from pypto_dialect.pipeline import PipelineOp, YieldOp


def demote_to_scf_for(op: PipelineOp, rewriter: PatternRewriter) -> scf.ForOp:
    """
    Replace `op` by an `scf.for` with the same bounds, iter_args, body,
    discardable attributes and location; `pypto.yield` becomes `scf.yield` and the policy
    properties are dropped.
    """
    body = rewriter.move_region_contents_to_new_regions(op.body)
    terminator = body.block.last_op
    assert isinstance(terminator, YieldOp), "verified pipelines end in pypto.yield"
    # `create`: the operands are those of a verified loop (the checked
    # constructors cost more than the rest of the demotion).
    yield_op = scf.YieldOp.create(
        operands=terminator.arguments, location=terminator.location
    )
    rewriter.replace(terminator, yield_op)
    loop = scf.ForOp.create(
        operands=op.operands,
        result_types=op.result_types,
        attributes=op.attributes.copy(),
        location=op.location,
        regions=[body],
    )
    for new, old in zip(loop.res, op.res, strict=True):
        new.name_hint = old.name_hint
    rewriter.replace(op, loop)
    return loop
