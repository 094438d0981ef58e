"""Helpers for the tests of `passes/analysis/`."""

from collections.abc import Sequence

from xdsl.ir import Operation

from passes.analysis import MemoryAccess, OpSummaries
from passes.analysis.windows import LinearForms


def memory_accesses(op: Operation, forms: LinearForms) -> Sequence[MemoryAccess] | None:
    """`OpSummaries.accesses` of `op` alone, with fresh memo tables."""
    return OpSummaries(forms).accesses(op)
