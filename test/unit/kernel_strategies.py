"""
Hypothesis strategies for random, valid pypto kernels with pipeline loops.

`kernels()` draws a `GeneratedKernel`: the MLIR text of one `func.func
@kernel`, the values of its `index` parameters, and the set of features it
exercises (`FEATURES` lists them all; `test_properties.py` checks that a
sample covers every one). The kernels cover what the passes must handle:
static and dynamic bounds (including empty and `ub < lb` ranges, and bounds
computed from an outer induction variable), steps 1..3, `stages` 1..8 with
trip counts around multiples of the stage count, scalar and tile iter_args
(`index`, `f32`, vector tiles, matmul accumulators), nested pipelines, `scf.if`
in bodies, several tensors, in-place updates of one tensor whose windows are
the same, overlap, or are disjoint across iterations (so that stages copied by
`lower-pipeline-loops` conflict or not), tile math, casts, row ops, matmul
paths, `tile.read` / `tile.write`, and cross-core push/pop in both directions.

Every kernel runs without an interpretation error for its `index_args`:
offsets are linear in the loop variables, a coefficient is only chosen when
the largest value the loops can reach keeps the window inside its tensor, and
every block pops a channel at most as often as it pushed to it before (so a
pop never finds the channel empty, whatever the trip counts).

Shrinking: every decision is an integer draw whose smallest value is the
simplest choice (fewer statements, no nesting, static bounds, stages 1,
offsets 0), so hypothesis reduces failures to small kernels.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from hypothesis import strategies as st

ROWS = 1024
"""Rows of every 2-D tensor: room for a window per iteration of nested loops."""
COLS = 8
TILE_ROWS = 4
"""E, the row extent of every window: offsets are built from multiples of it."""
TILE_COLS = COLS
VEC_TENSOR = f"!pypto.tensor<{ROWS}x{COLS}xf32>"
VEC_TILE = f"!pypto.tile<{TILE_ROWS}x{TILE_COLS}xf32, vec>"
BF16_TILE = f"!pypto.tile<{TILE_ROWS}x{TILE_COLS}xbf16, vec>"
ROW_TILE = f"!pypto.tile<{TILE_ROWS}x1xf32, vec>"
MM_K = 8
MM_N = COLS
A_TENSOR = f"!pypto.tensor<{ROWS}x{MM_K}xbf16>"
B_TENSOR = f"!pypto.tensor<{MM_K}x{MM_N}xbf16>"
C_TENSOR = f"!pypto.tensor<{ROWS}x{MM_N}xf32>"
A_MAT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, mat>"
B_MAT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, mat>"
A_LEFT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, left>"
B_RIGHT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, right>"
ACC_TILE = f"!pypto.tile<{TILE_ROWS}x{MM_N}xf32, acc>"
F32 = "f32"
INDEX = "index"

VEC_TENSORS = ("x", "y", "z")
"""The f32 tensors every kernel takes; `x` is also updated in place."""
TENSOR_PARAMS = (
    *(f"%{name}: {VEC_TENSOR}" for name in VEC_TENSORS),
    f"%a: {A_TENSOR}",
    f"%b: {B_TENSOR}",
    f"%c: {C_TENSOR}",
)

BINARY_OPS = ("add", "sub", "mul", "max", "min", "div")
SCALAR_OPS = ("adds", "subs", "muls", "maxs", "mins", "divs")
UNARY_OPS = ("neg", "abs", "exp", "relu", "sqrt", "rsqrt", "recip")
ROW_OPS = ("row_sum", "row_max")
ROW_EXPAND_OPS = (
    "row_expand_add",
    "row_expand_sub",
    "row_expand_mul",
    "row_expand_div",
)
FLOAT_CONSTANTS = (0.5, -1.25, 2.0, 3.0, -0.75)

CHANNELS = {
    "aic_to_aiv": ("tpush_to_aiv", "tpop_from_aic"),
    "aiv_to_aic": ("tpush_to_aic", "tpop_from_aiv"),
}
"""Per cross-core channel: the op that pushes to it and the op that pops from it."""

FEATURES = frozenset(
    {
        *(f"stages {stages}" for stages in range(1, 9)),
        *(f"step {step}" for step in (1, 2, 3)),
        "static bounds",
        "dynamic lower bound",
        "dynamic upper bound",
        "bounds from an outer loop",
        "empty range",
        "ub < lb, static",
        "ub < lb, dynamic",
        "trip < stages",
        "trip a multiple of stages",
        "trip not a multiple of stages",
        "index iter_arg",
        "f32 iter_arg",
        "vector tile iter_arg",
        "matmul accumulator iter_arg",
        "nested pipeline",
        "scf.if",
        "store in scf.if",
        "in-place, same window",
        "in-place, overlapping window",
        "in-place, overlap across iterations",
        "in-place, disjoint across iterations",
        "load after an in-place store",
        "tile math",
        "tile-scalar math",
        "unary math",
        "cast",
        "row op",
        "tile.read",
        "tile.write",
        "matmul",
        "matmul_acc",
        "push aic_to_aiv",
        "push aiv_to_aic",
        "pop aic_to_aiv",
        "pop aiv_to_aic",
        "pop of an older tile",
        "tile left in a channel",
        "overlap_stores = false",
        "double_buffer_acc = true",
    }
)
"""Every feature `kernels()` can report; each one appears in a modest sample."""


@dataclass(frozen=True)
class GeneratedKernel:
    """A kernel's text, the values of its `index` parameters, and what it exercises."""

    text: str
    index_args: dict[str, int]
    features: frozenset[str] = frozenset()
    entry: str = "kernel"


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
class _Scope:
    """Values visible at a point of the kernel being generated, and its block's pushes."""

    loop_vars: list[LoopVar] = field(default_factory=list[LoopVar])
    vec_tiles: list[str] = field(default_factory=list[str])
    scalars: list[str] = field(default_factory=list[str])
    """f32 values."""
    pending: dict[str, int] = field(default_factory=dict[str, int])
    """Per channel: tiles this block pushed and has not popped yet."""

    def nested(self) -> _Scope:
        """The scope of a nested block: sees these values; its pushes are its own."""
        return _Scope(list(self.loop_vars), list(self.vec_tiles), list(self.scalars))


_T = TypeVar("_T")


@dataclass
class _KernelBuilder:
    """Emits one kernel, drawing every decision from hypothesis."""

    draw: Callable[[st.SearchStrategy[int]], int]
    max_stages: int
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

    def scalar(self, scope: _Scope) -> str:
        if scope.scalars and self.integer(0, 1):
            return self.choice(scope.scalars)
        return self.constant_f32()

    # -- offsets ------------------------------------------------------------- #

    def draw_terms(self, scope: _Scope, extent: int, limit: int) -> tuple[Terms, int]:
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

    def row_offset(self, scope: _Scope) -> str:
        """A random row offset for a window of `TILE_ROWS` rows."""
        terms, budget = self.draw_terms(scope, TILE_ROWS, ROWS)
        return self.emit_offset(terms, self.integer(0, min(budget, 2 * TILE_ROWS)))

    # -- statements ---------------------------------------------------------- #

    def emit_load(self, tensor: str, row: str) -> str:
        """A vector tile loaded from rows `row ...` of `%tensor`."""
        return self.emit_value(
            "t",
            f"pypto.tile.load %{tensor}[{row}, {self.constant_index(0)}] : "
            f"{VEC_TENSOR} -> {VEC_TILE}",
        )

    def load_vec(self, scope: _Scope) -> str:
        tensor = self.choice(VEC_TENSORS)
        tile = self.emit_load(tensor, self.row_offset(scope))
        scope.vec_tiles.append(tile)
        return tile

    def any_vec_tile(self, scope: _Scope) -> str:
        if scope.vec_tiles and self.integer(0, 1):
            return self.choice(scope.vec_tiles)
        return self.load_vec(scope)

    def store_vec(self, scope: _Scope) -> None:
        tile = self.any_vec_tile(scope)
        tensor = self.choice(VEC_TENSORS)
        row = self.row_offset(scope)
        self.emit_store(tile, tensor, row, f"{VEC_TILE}, {VEC_TENSOR}")

    def in_place_update(self, scope: _Scope) -> None:
        """
        `x[w + d] = x[w] + s`, sometimes followed by a load of `x[w + d]`: the
        store window is the load window shifted by `d`; across iterations of
        the innermost loop the windows of different iterations overlap or not
        depending on `d`, the coefficient and the step.
        """
        terms, budget = self.draw_terms(scope, TILE_ROWS, ROWS)
        load_const = self.integer(0, min(budget, 2 * TILE_ROWS))
        delta = self.choice((0, TILE_ROWS // 2, TILE_ROWS, -TILE_ROWS // 2, 1))
        if not 0 <= load_const + delta <= budget:
            delta = 0
        row = self.emit_offset(terms, load_const)
        tile = self.emit_load("x", row)
        updated = self.emit_value(
            "u", f"pypto.tile.adds {tile}, {self.scalar(scope)} : {VEC_TILE}, f32"
        )
        target = self.emit_offset(terms, load_const + delta) if delta else row
        self.emit_store(updated, "x", target, f"{VEC_TILE}, {VEC_TENSOR}")
        scope.vec_tiles.append(updated)
        self.note_in_place(scope, terms, delta)
        if self.sometimes(2):
            scope.vec_tiles.append(self.emit_load("x", target))
            self.features.add("load after an in-place store")

    def note_in_place(self, scope: _Scope, terms: Terms, delta: int) -> None:
        """Whether the windows of one iteration, and of different ones, overlap."""
        if delta == 0:
            self.features.add("in-place, same window")
        elif abs(delta) < TILE_ROWS:
            self.features.add("in-place, overlapping window")
        innermost = scope.loop_vars[-1] if scope.loop_vars else None
        if innermost is None or innermost.trip < 2:
            return
        coef = dict(terms).get(innermost, 0)
        distances = (
            coef * innermost.step * m + delta for m in range(1, innermost.trip)
        )
        if any(abs(distance) < TILE_ROWS for distance in distances):
            self.features.add("in-place, overlap across iterations")
        else:
            self.features.add("in-place, disjoint across iterations")

    def vec_math(self, scope: _Scope) -> None:
        lhs = self.any_vec_tile(scope)
        kind = self.integer(0, 5)
        if kind == 0:
            rhs = self.any_vec_tile(scope)
            op = self.choice(BINARY_OPS)
            result = self.emit_value("m", f"pypto.tile.{op} {lhs}, {rhs} : {VEC_TILE}")
            self.features.add("tile math")
        elif kind == 1:
            op = self.choice(SCALAR_OPS)
            result = self.emit_value(
                "m", f"pypto.tile.{op} {lhs}, {self.scalar(scope)} : {VEC_TILE}, f32"
            )
            self.features.add("tile-scalar math")
        elif kind == 2:
            op = self.choice(UNARY_OPS)
            result = self.emit_value("m", f"pypto.tile.{op} {lhs} : {VEC_TILE}")
            self.features.add("unary math")
        elif kind == 3:
            op, expand = self.choice(ROW_OPS), self.choice(ROW_EXPAND_OPS)
            reduced = self.emit_value(
                "r", f"pypto.tile.{op} {lhs} : {VEC_TILE} -> {ROW_TILE}"
            )
            result = self.emit_value(
                "m",
                f"pypto.tile.{expand} {lhs}, {reduced} : {VEC_TILE}, {ROW_TILE}",
            )
            self.features.add("row op")
        elif kind == 4:
            narrow = self.emit_value(
                "n", f"pypto.tile.cast {lhs} : {VEC_TILE} -> {BF16_TILE}"
            )
            result = self.emit_value(
                "m", f"pypto.tile.cast {narrow} : {BF16_TILE} -> {VEC_TILE}"
            )
            self.features.add("cast")
        else:
            element = self.read_element(scope, lhs)
            target = self.any_vec_tile(scope)
            r, c = self.integer(0, TILE_ROWS - 1), self.integer(0, TILE_COLS - 1)
            result = self.emit_value(
                "m",
                f"pypto.tile.write {element}, {target}[{self.constant_index(r)}, "
                f"{self.constant_index(c)}] : {VEC_TILE}",
            )
            self.features.add("tile.write")
        scope.vec_tiles.append(result)

    def read_element(self, scope: _Scope, tile: str) -> str:
        r, c = self.integer(0, TILE_ROWS - 1), self.integer(0, TILE_COLS - 1)
        element = self.emit_value(
            "e",
            f"pypto.tile.read {tile}[{self.constant_index(r)}, "
            f"{self.constant_index(c)}] : {VEC_TILE}",
        )
        scope.scalars.append(element)
        self.features.add("tile.read")
        return element

    def matmul(self, scope: _Scope, acc: str | None) -> str:
        """Load an A window and B, move them to L0 and multiply (accumulating into `acc`)."""
        row = self.row_offset(scope)
        zero = self.constant_index(0)
        a_mat = self.emit_value(
            "am", f"pypto.tile.load %a[{row}, {zero}] : {A_TENSOR} -> {A_MAT}"
        )
        b_mat = self.emit_value(
            "bm", f"pypto.tile.load %b[{zero}, {zero}] : {B_TENSOR} -> {B_MAT}"
        )
        if self.integer(0, 1):
            a_left = self.emit_value(
                "al", f"pypto.tile.move {a_mat} : {A_MAT} -> {A_LEFT}"
            )
        else:
            a_left = self.emit_value(
                "al",
                f"pypto.tile.extract {a_mat}[{zero}, {zero}] : {A_MAT} -> {A_LEFT}",
            )
        b_right = self.emit_value(
            "br", f"pypto.tile.extract {b_mat}[{zero}, {zero}] : {B_MAT} -> {B_RIGHT}"
        )
        if acc is None:
            self.features.add("matmul")
            return self.emit_value(
                "p",
                f"pypto.tile.matmul {a_left}, {b_right} : {A_LEFT}, {B_RIGHT} -> {ACC_TILE}",
            )
        self.features.add("matmul_acc")
        return self.emit_value(
            "p",
            f"pypto.tile.matmul_acc {acc}, {a_left}, {b_right} : "
            f"{ACC_TILE}, {A_LEFT}, {B_RIGHT}",
        )

    def store_acc(self, scope: _Scope, acc: str) -> None:
        self.emit_store(acc, "c", self.row_offset(scope), f"{ACC_TILE}, {C_TENSOR}")

    def matmul_chain(self, scope: _Scope) -> None:
        product = self.matmul(scope, None)
        if self.sometimes(3):
            product = self.matmul(scope, product)
        self.store_acc(scope, product)

    def cross_core(self, scope: _Scope) -> None:
        """A push, or a pop of a tile this block pushed earlier (not always the last)."""
        channel = self.choice(tuple(CHANNELS))
        push, pop = CHANNELS[channel]
        pending = scope.pending.get(channel, 0)
        if not pending or not self.integer(0, 1):
            for _ in range(1 + self.sometimes(3)):
                self.emit(f"pypto.tile.{push} {self.any_vec_tile(scope)} : {VEC_TILE}")
                pending += 1
            self.features.add(f"push {channel}")
            if self.sometimes(2):  # pop later
                scope.pending[channel] = pending
                return
        if pending > 1:
            self.features.add("pop of an older tile")
        received = self.emit_value("q", f"pypto.tile.{pop} : {VEC_TILE}")
        self.features.add(f"pop {channel}")
        scope.pending[channel] = pending - 1
        scope.vec_tiles.append(received)

    def conditional(self, scope: _Scope) -> None:
        """An `scf.if` on a loop variable, yielding a tile, with statements in each branch."""
        var = scope.loop_vars[-1]
        pivot = self.constant_index(self.integer(var.low, var.high))
        cond = self.emit_value("cond", f"arith.cmpi slt, {var.name}, {pivot} : index")
        result = self.fresh("sel")
        self.features.add("scf.if")
        self.emit(f"{result} = scf.if {cond} -> ({VEC_TILE}) {{")
        self.branch(scope)
        self.emit("} else {")
        self.branch(scope)
        self.emit("}")
        scope.vec_tiles.append(result)

    def branch(self, scope: _Scope) -> None:
        """A block of an `scf.if`: a few statements, then yield a tile."""
        inner = scope.nested()
        stores = self.stores
        with self.indented():
            for _ in range(self.integer(0, 2)):
                self.statement(inner, allow_if=False)
            self.emit(f"scf.yield {self.any_vec_tile(inner)} : {VEC_TILE}")
        if self.stores > stores:
            self.features.add("store in scf.if")
        self.note_leftovers(inner)

    def statement(self, scope: _Scope, *, allow_if: bool = True) -> None:
        kind = self.integer(0, 9)
        if kind == 0:
            self.load_vec(scope)
        elif kind in (1, 2):
            self.vec_math(scope)
        elif kind == 3:
            self.store_vec(scope)
        elif kind in (4, 5):
            self.in_place_update(scope)
        elif kind == 6:
            self.matmul_chain(scope)
        elif kind == 7 and allow_if and scope.loop_vars:
            self.conditional(scope)
        else:
            self.cross_core(scope)

    def note_leftovers(self, scope: _Scope) -> None:
        if any(scope.pending.values()):
            self.features.add("tile left in a channel")

    # -- loops ---------------------------------------------------------------- #

    def bound(self, value: int, dynamic: bool) -> str:
        if not dynamic:
            return self.constant_index(value)
        name = f"%n{len(self.index_args)}"
        self.params.append(f"{name}: index")
        self.index_args[name[1:]] = value
        return name

    def loop_bounds(self, scope: _Scope, stages: int) -> tuple[str, str, LoopVar]:
        """`lb`, `ub` and the induction variable (without its name yet)."""
        step = self.integer(1, 3)
        trip = self.integer(0, 3) * stages + self.integer(-1, stages)
        outer = scope.loop_vars[-1] if scope.loop_vars else None
        if outer is not None and self.sometimes(2):
            # lb = outer induction variable, ub = lb + extent
            trip = max(trip, 0)
            extent = trip * step - self.integer(0, step - 1) if trip else 0
            lb_name = outer.name
            ub_name = self.emit_value(
                "ub", f"arith.addi {outer.name}, {self.constant_index(extent)} : index"
            )
            low, high = outer.low, outer.high + max(trip - 1, 0) * step
            self.features.add("bounds from an outer loop")
        else:
            lb = self.integer(0, 3)
            dynamic_lb, dynamic_ub = self.sometimes(3), self.sometimes(2)
            if self.sometimes(6):
                ub = lb - self.integer(1, 3)
                dynamic = dynamic_lb or dynamic_ub
                self.features.add(f"ub < lb, {'dynamic' if dynamic else 'static'}")
            else:
                ub = lb + max(trip, 0) * step - self.integer(0, step - 1)
            trip = max(0, -(-(ub - lb) // step))
            lb_name, ub_name = self.bound(lb, dynamic_lb), self.bound(ub, dynamic_ub)
            low, high = lb, lb + max(trip - 1, 0) * step
            self.features.update(
                {
                    (False, False): ("static bounds",),
                    (True, False): ("dynamic lower bound",),
                    (False, True): ("dynamic upper bound",),
                    (True, True): ("dynamic lower bound", "dynamic upper bound"),
                }[dynamic_lb, dynamic_ub]
            )
        self.features.add(f"step {step}")
        if trip == 0:
            self.features.add("empty range")
        elif trip < stages:
            self.features.add("trip < stages")
        if trip and trip % stages == 0:
            self.features.add("trip a multiple of stages")
        elif trip:
            self.features.add("trip not a multiple of stages")
        return lb_name, ub_name, LoopVar("", low, high, step, trip)

    def iter_args(self, scope: _Scope) -> list[tuple[str, str, str]]:
        """(block argument, initial value, type) of each loop-carried value."""
        inits: list[tuple[str, str, str]] = []
        if self.sometimes(2):
            init = self.constant_index(self.integer(0, 5))
            inits.append((self.fresh("ia"), init, INDEX))
            self.features.add("index iter_arg")
        if self.sometimes(4):
            inits.append((self.fresh("fa"), self.scalar(scope), F32))
            self.features.add("f32 iter_arg")
        if self.sometimes(3):
            inits.append((self.fresh("ta"), self.any_vec_tile(scope), VEC_TILE))
            self.features.add("vector tile iter_arg")
        if self.sometimes(4):
            zero = self.constant("0.0 : f32", "zf")
            init = self.emit_value("acc", f"pypto.tile.full {zero} : f32 -> {ACC_TILE}")
            inits.append((self.fresh("ma"), init, ACC_TILE))
            self.features.add("matmul accumulator iter_arg")
        return inits

    def pipeline(self, scope: _Scope, max_stages: int) -> list[tuple[str, str]]:
        """A pipeline loop with a random body; returns its results and their types."""
        # Few stages mostly (the copies, hence the IR, grow as stages squared).
        stages = self.integer(1, min(max_stages, 4))
        if max_stages > 4 and self.sometimes(3):
            stages = self.integer(5, max_stages)
        self.features.add(f"stages {stages}")
        lb_name, ub_name, var = self.loop_bounds(scope, stages)
        constants = self.constants.values()
        static = lb_name in constants and ub_name in constants
        step_name = self.constant_index(var.step)
        inits = self.iter_args(scope)
        var = LoopVar(self.fresh("i"), var.low, var.high, var.step, var.trip)
        policy = ""
        if self.sometimes(4):
            policy += " overlap_stores = false"
            self.features.add("overlap_stores = false")
        if self.sometimes(4):
            policy += " double_buffer_acc = true"
            self.features.add("double_buffer_acc = true")
        results = [self.fresh("res") for _ in inits]
        header = (
            f"pypto.pipeline {var.name} = {lb_name} to {ub_name} step {step_name} "
            f"stages {stages}{policy}"
        )
        types = ", ".join(typ for _, _, typ in inits)
        if inits:
            assignments = ", ".join(f"{arg} = {init}" for arg, init, _ in inits)
            header = (
                f"{', '.join(results)} = {header} iter_args({assignments}) -> ({types})"
            )
        self.emit(header + " {")
        enclosing = self.copies
        self.copies *= lowered_copies(stages, var.trip, static=static)
        with self.indented():
            body = scope.nested()
            body.loop_vars.append(var)
            body.vec_tiles.extend(arg for arg, _, typ in inits if typ == VEC_TILE)
            body.scalars.extend(arg for arg, _, typ in inits if typ == F32)
            yielded = self.loop_body(body, var, stages, inits)
            if inits:
                self.emit(f"pypto.yield {', '.join(yielded)} : {types}")
        self.emit("}")
        self.copies = enclosing
        return [
            (result, typ) for result, (_, _, typ) in zip(results, inits, strict=True)
        ]

    def use_results(self, scope: _Scope, results: list[tuple[str, str]]) -> None:
        """Make a loop's results available to later statements (store accumulators)."""
        for name, typ in results:
            if typ == VEC_TILE:
                scope.vec_tiles.append(name)
            elif typ == F32:
                scope.scalars.append(name)
            elif typ == ACC_TILE:
                self.store_acc(scope, name)

    def loop_body(
        self,
        scope: _Scope,
        var: LoopVar,
        stages: int,
        inits: list[tuple[str, str, str]],
    ) -> list[str]:
        """
        The statements of a loop body, maybe a nested pipeline, and the
        yielded values. The more copies the lowering makes of the body, the
        smaller it is, so that the lowered kernels stay quick to check.
        """
        most = 3 if self.copies <= 6 else 2 if self.copies <= 15 else 1
        for _ in range(self.integer(1, most)):
            self.statement(scope)
        if self.depth < 1 and self.copies <= 10 and self.sometimes(4):
            self.depth += 1
            self.features.add("nested pipeline")
            nested_stages = max(1, min(self.max_stages // 2, 8 // stages))
            self.use_results(scope, self.pipeline(scope, nested_stages))
            self.depth -= 1
            if self.integer(0, 1):
                self.statement(scope)
        if scope.vec_tiles and self.sometimes(2):
            # Store the latest tile, so that what the body computed reaches the outputs.
            row = self.row_offset(scope)
            tensor = self.choice(VEC_TENSORS)
            self.emit_store(
                scope.vec_tiles[-1], tensor, row, f"{VEC_TILE}, {VEC_TENSOR}"
            )
        yielded: list[str] = []
        for arg, _, typ in inits:
            if typ == INDEX:
                value = self.emit_value("iv", f"arith.addi {arg}, {var.name} : index")
            elif typ == F32:
                element = self.read_element(scope, self.any_vec_tile(scope))
                value = self.emit_value("fv", f"arith.addf {arg}, {element} : f32")
            elif typ == VEC_TILE:
                value = self.emit_value(
                    "tv",
                    f"pypto.tile.add {arg}, {self.any_vec_tile(scope)} : {VEC_TILE}",
                )
            else:
                value = self.matmul(scope, arg)
            yielded.append(value)
        self.note_leftovers(scope)
        return yielded


def lowered_copies(stages: int, trip: int, *, static: bool) -> int:
    """How many copies of a loop body `lower-pipeline-loops` makes (at least 1)."""
    if stages == 1:
        return 1
    if not static:  # the main loop's F copies, then 1 + 2 + ... + F-1 in the cascade
        return stages * (stages + 1) // 2
    main, remainder = divmod(trip, stages)
    return max(1, (stages if main else 0) + remainder)


@st.composite
def kernels(draw: st.DrawFn, max_stages: int = 8) -> GeneratedKernel:
    """A random valid kernel with one or two pipeline loops of at most `max_stages`."""
    builder = _KernelBuilder(draw=draw, max_stages=max_stages)
    scope = _Scope()
    returned: list[tuple[str, str]] = []
    for _ in range(1 + builder.sometimes(3)):
        results = builder.pipeline(scope, max_stages)
        builder.use_results(scope, results)
        returned.extend(results)
        if builder.sometimes(3):
            builder.statement(scope)
    builder.note_leftovers(scope)
    signature = ", ".join([*TENSOR_PARAMS, *builder.params])
    constants = [
        f"  {name} = arith.constant {literal}"
        for literal, name in builder.constants.items()
    ]
    body = "\n".join([*constants, *builder.lines])
    types = ", ".join(typ for _, typ in returned)
    names = ", ".join(name for name, _ in returned)
    header = f"func.func @kernel({signature})"
    ret = "func.return"
    if returned:
        header += f" -> ({types})"
        ret += f" {names} : {types}"
    return GeneratedKernel(
        text=f"{header} {{\n{body}\n  {ret}\n}}\n",
        index_args=dict(builder.index_args),
        features=frozenset(builder.features),
    )
