"""
The state of a kernel being generated and the helpers that emit it: drawing
decisions from hypothesis, fresh names, lines, constants, and linear offsets
over the loop variables that keep every window inside its tensor.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from hypothesis import strategies as st

from bench.kernels.vocabulary import FLOAT_CONSTANTS, ROWS, TILE_ROWS


@dataclass(frozen=True)
class LoopVar:
    """An induction variable with the values it takes while the kernel runs."""

    name: str
    low: int
    high: int
    step: int
    trip: int
    """How many iterations the loop runs (per run of the enclosing block)."""


Terms = tuple[tuple[LoopVar, int], ...]
"""The `coefficient * variable` terms of a linear offset."""


@dataclass
class Scope:
    """Values visible at a point of the kernel being generated, and its block's pushes."""

    loop_vars: list[LoopVar] = field(default_factory=list[LoopVar])
    vec_tiles: list[str] = field(default_factory=list[str])
    scalars: list[str] = field(default_factory=list[str])
    """f32 values."""
    pending: dict[str, int] = field(default_factory=dict[str, int])
    """Per channel: tiles this block pushed and has not popped yet."""

    def nested(self) -> Scope:
        """The scope of a nested block: sees these values; its pushes are its own."""
        return Scope(list(self.loop_vars), list(self.vec_tiles), list(self.scalars))


_T = TypeVar("_T")


@dataclass
class KernelEmitter:
    """The state of one kernel being emitted, and the helpers its statements and loops use."""

    draw: Callable[[st.SearchStrategy[int]], int]
    max_stages: int
    rotatable: bool = False
    """Mostly step 1 and start 0: loops `lower-pipeline-to-slots` may rotate."""
    bindings: bool = False
    """
    Some loads of blocks that no pipeline with stages > 1 encloses are bound
    to declared allocations (of one slot, or of two: slot 0, 1 or `i % 2`).
    """
    pypto_form: bool = False
    """
    Acc accumulators start as PyPTO starts one, with a first matmul (its
    `pl.tile.full` fills Vec only), not a fill: the kernel has a PyPTO print.
    """
    declarations: list[str] = field(default_factory=list[str])
    """The `pypto.alloc` lines, at the function's entry."""
    replicated: int = 0
    """The enclosing pipelines with stages > 1 (which `lower-pipeline-loops` copies)."""
    lines: list[str] = field(default_factory=list[str])
    constants: dict[str, str] = field(default_factory=dict[str, str])
    """`value : type` -> name of the constants, all defined at the function's entry."""
    params: list[str] = field(default_factory=list[str])
    index_args: dict[str, int] = field(default_factory=dict[str, int])
    features: set[str] = field(default_factory=set[str])
    indent: int = 1
    counter: int = 0
    depth: int = 0
    stores: int = 0
    copies: int = 1
    """How many copies of the current block `lower-pipeline-loops` makes."""

    # -- drawing and emission helpers ---------------------------------------- #

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def sometimes(self, one_in: int) -> bool:
        """True with probability `1 / one_in`; shrinks to False."""
        return self.integer(0, one_in - 1) == one_in - 1

    def choice(self, options: Sequence[_T]) -> _T:
        """One of `options`; shrinks to the first."""
        return options[self.integer(0, len(options) - 1)]

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def emit_value(self, hint: str, expression: str) -> str:
        name = self.fresh(hint)
        self.emit(f"{name} = {expression}")
        return name

    @contextmanager
    def indented(self) -> Generator[None, None, None]:
        self.indent += 1
        yield
        self.indent -= 1

    def emit_store(self, tile: str, tensor: str, row: str, types: str) -> None:
        zero = self.constant_index(0)
        self.emit(f"pypto.tile.store {tile}, %{tensor}[{row}, {zero}] : {types}")
        self.stores += 1

    def constant(self, literal: str, hint: str) -> str:
        """The constant `literal` (`value : type`), defined once at the function's entry."""
        if literal not in self.constants:
            self.constants[literal] = self.fresh(hint)
        return self.constants[literal]

    def constant_index(self, value: int) -> str:
        return self.constant(f"{value} : index", "c")

    def constant_f32(self) -> str:
        return self.constant(f"{self.choice(FLOAT_CONSTANTS)} : f32", "f")

    def scalar(self, scope: Scope) -> str:
        if scope.scalars and self.integer(0, 1):
            return self.choice(scope.scalars)
        return self.constant_f32()

    # -- offsets ------------------------------------------------------------- #

    def draw_terms(self, scope: Scope, extent: int, limit: int) -> tuple[Terms, int]:
        """
        Terms `coef * var` over the visible loop variables, innermost first,
        and the budget left for the constant so that `[offset, offset + extent)`
        stays inside `[0, limit)` for every value the variables take.
        """
        budget = limit - extent
        terms: list[tuple[LoopVar, int]] = []
        for depth, var in enumerate(reversed(scope.loop_vars)):
            coef = self.choice((0, extent, extent // 2, 1, 2 * extent))
            if depth and not self.sometimes(3):
                coef = 0  # outer variables: less often, as the offsets get long
            if coef and coef * var.high <= budget:
                terms.append((var, coef))
                budget -= coef * var.high
        return tuple(terms), budget

    def emit_offset(self, terms: Terms, const: int) -> str:
        """The index `sum(coef * var) + const`."""
        value = self.constant_index(const) if const or not terms else None
        for var, coef in terms:
            scaled = var.name
            if coef != 1:
                scaled = self.emit_value(
                    "s", f"arith.muli {var.name}, {self.constant_index(coef)} : index"
                )
            if value is None:
                value = scaled
            else:
                value = self.emit_value("o", f"arith.addi {scaled}, {value} : index")
        assert value is not None
        return value

    def row_offset(self, scope: Scope) -> str:
        """A random row offset for a window of `TILE_ROWS` rows."""
        terms, budget = self.draw_terms(scope, TILE_ROWS, ROWS)
        return self.emit_offset(terms, self.integer(0, min(budget, 2 * TILE_ROWS)))
