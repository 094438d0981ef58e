"""
Analyses shared by the passes: the dependence graph of a block (`graph.py`),
with its edge reasons (`dependence.py`), the memory summaries of ops
(`summaries.py`), the conflict frontier (`frontier.py`) and access windows
(`windows.py`).
"""

from passes.analysis.dependence import Dependence, DependenceKind
from passes.analysis.graph import DependenceGraph
from passes.analysis.summaries import AccessKind, MemoryAccess, OpSummaries

__all__ = [
    "AccessKind",
    "Dependence",
    "DependenceGraph",
    "DependenceKind",
    "MemoryAccess",
    "OpSummaries",
]
