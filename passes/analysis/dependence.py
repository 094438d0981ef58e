"""What a dependence is: the reason of an edge of the dependence graph (`graph.py`)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import NamedTuple

from xdsl.ir import BlockArgument, OpResult, SSAValue
from xdsl.traits import Resource


class DependenceKind(Enum):
    """Why an op must stay after another one."""

    SSA = "uses"
    READ_AFTER_WRITE = "read after write"
    WRITE_AFTER_READ = "write after read"
    WRITE_AFTER_WRITE = "write after write"
    UNKNOWN_EFFECTS = "unknown memory effects"


def describe_value(value: SSAValue) -> str:
    """`%name` when the value has a name hint, else what defines it."""
    if value.name_hint is not None:
        return f"%{value.name_hint}"
    if isinstance(value, OpResult):
        return f"result #{value.index} of {value.op.name}"
    if isinstance(value, BlockArgument):
        return f"block argument #{value.index}"
    return "an erased value"


class Dependence(NamedTuple):
    """
    The reason of an edge: a used result, or a memory conflict. (A named
    tuple: one is made per edge, and a frozen dataclass costs 3x as much.)
    """

    kind: DependenceKind
    value: SSAValue | None = None
    """SSA: the used result. Memory: the object the later op accesses, if known."""
    resource: Resource | None = None
    """Memory: the resource the later op accesses (None for the default one)."""

    def __str__(self) -> str:
        return self.describe()

    def describe(self, name: Callable[[SSAValue], str] = describe_value) -> str:
        """The reason in words, the value (if any) named by `name`."""
        text = self.kind.value
        if self.value is not None:
            text += f" {'' if self.kind is DependenceKind.SSA else 'of '}"
            text += name(self.value)
        if self.resource is not None:
            text += f" on {self.resource.name()}"
        return text
