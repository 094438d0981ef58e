"""The `lower-pipeline-loops` pass (placeholder until its issue lands)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException


@dataclass(frozen=True)
class LowerPipelineLoopsPass(ModulePass):
    """Not implemented yet: raises a diagnostic."""

    name = "lower-pipeline-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("lower-pipeline-loops is not implemented yet")
