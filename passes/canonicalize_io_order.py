"""The `canonicalize-io-order` pass (placeholder until its issue lands)."""

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import PassFailedException


@dataclass(frozen=True)
class CanonicalizeIOOrderPass(ModulePass):
    """Not implemented yet: raises a diagnostic."""

    name = "canonicalize-io-order"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        raise PassFailedException("canonicalize-io-order is not implemented yet")
