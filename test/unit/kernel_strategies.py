"""
Hypothesis strategies for random, valid pypto kernels with pipeline loops.

`kernels()` draws a `GeneratedKernel`: MLIR text of one `func.func @kernel`
plus the values of its `index` parameters. The kernels cover what the passes
must handle: static and dynamic bounds (including empty and `ub < lb` ranges),
steps 1..3, `stages` 1..8 with trip counts around multiples of the stage
count, scalar and tile iter_args, nested pipelines, `scf.if` in bodies,
several tensors, in-place updates of one tensor with disjoint and with
overlapping windows, tile math, row ops, matmul paths, `tile.read`/`tile.write`
and cross-core push/pop pairs.

Every window stays inside its tensor for the index values the kernel is run
with: offsets are linear in the loop variables, and coefficients are only
chosen when the largest value the loops can reach keeps the window in bounds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from hypothesis import strategies as st

ROWS = 384
"""Rows of every 2-D tensor; large enough for a window per loop iteration."""
COLS = 8
TILE_ROWS = 4
TILE_COLS = 8
VEC_TENSOR = f"!pypto.tensor<{ROWS}x{COLS}xf32>"
VEC_TILE = f"!pypto.tile<{TILE_ROWS}x{TILE_COLS}xf32, vec>"
ROW_TILE = f"!pypto.tile<{TILE_ROWS}x1xf32, vec>"
MM_K = 8
MM_N = 8
A_TENSOR = f"!pypto.tensor<{ROWS}x{MM_K}xbf16>"
B_TENSOR = f"!pypto.tensor<{MM_K}x{MM_N}xbf16>"
A_MAT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, mat>"
B_MAT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, mat>"
A_LEFT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, left>"
B_RIGHT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, right>"
ACC_TILE = f"!pypto.tile<{TILE_ROWS}x{MM_N}xf32, acc>"

VEC_TENSORS = ("x", "y", "z")
"""The f32 tensors every kernel takes; `x` is also updated in place."""

BINARY_OPS = ("add", "sub", "mul", "max", "min", "div")
SCALAR_OPS = ("adds", "subs", "muls", "maxs", "mins")
UNARY_OPS = ("neg", "abs", "exp", "relu", "sqrt", "rsqrt", "recip")
ROW_EXPAND_OPS = ("row_expand_add", "row_expand_sub", "row_expand_mul")


@dataclass(frozen=True)
class GeneratedKernel:
    """A kernel's text and the values of its `index` parameters."""

    text: str
    index_args: dict[str, int]
    entry: str = "kernel"


@dataclass(frozen=True)
class LoopVar:
    """An index value with the range of values it takes while the kernel runs."""

    name: str
    low: int
    high: int


@dataclass
class _Scope:
    """Values visible at a point of the kernel being generated."""

    loop_vars: list[LoopVar] = field(default_factory=list[LoopVar])
    vec_tiles: list[str] = field(default_factory=list[str])
    scalars: list[str] = field(default_factory=list[str])

    def copy(self) -> _Scope:
        """A scope for a nested region: sees these values, adds its own privately."""
        return _Scope(list(self.loop_vars), list(self.vec_tiles), list(self.scalars))


@dataclass
class _KernelBuilder:
    """Emits one kernel, drawing every decision from hypothesis."""

    draw: Callable[[st.SearchStrategy[int]], int]
    lines: list[str] = field(default_factory=list[str])
    params: list[str] = field(default_factory=list[str])
    index_args: dict[str, int] = field(default_factory=dict[str, int])
    indent: int = 1
    counter: int = 0
    depth: int = 0

    # -- emission helpers ---------------------------------------------------- #

    def fresh(self, hint: str) -> str:
        self.counter += 1
        return f"%{hint}{self.counter}"

    def emit(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    @contextmanager
    def region(self, header: str) -> Iterator[None]:
        self.emit(header + " {")
        self.indent += 1
        yield
        self.indent -= 1
        self.emit("}")

    def integer(self, low: int, high: int) -> int:
        return self.draw(st.integers(low, high))

    def choice(self, options: tuple[str, ...] | list[str]) -> str:
        return options[self.integer(0, len(options) - 1)]

    def constant_index(self, value: int) -> str:
        name = self.fresh("c")
        self.emit(f"{name} = arith.constant {value} : index")
        return name

    def constant_f32(self) -> str:
        name = self.fresh("f")
        value = self.draw(st.sampled_from((0.5, -1.25, 2.0, 3.0, -0.75)))
        self.emit(f"{name} = arith.constant {value} : f32")
        return name

    # -- offsets ------------------------------------------------------------- #

    def row_offset(self, scope: _Scope, extent: int, limit: int) -> str:
        """
        An index `sum(coef * var) + const` such that the window
        `[offset, offset + extent)` stays inside `[0, limit)` whatever values
        the loop variables take.
        """
        budget = limit - extent
        terms: list[tuple[LoopVar, int]] = []
        for var in scope.loop_vars:
            coef = self.draw(st.sampled_from((0, 1, extent // 2, extent, 2 * extent)))
            if coef and coef * var.high <= budget:
                terms.append((var, coef))
                budget -= coef * var.high
        const = self.integer(0, min(budget, 2 * extent))
        value = self.constant_index(const)
        for var, coef in terms:
            scaled = var.name
            if coef != 1:
                scaled = self.fresh("s")
                self.emit(
                    f"{scaled} = arith.muli {var.name}, {self.constant_index(coef)} : index"
                )
            summed = self.fresh("o")
            self.emit(f"{summed} = arith.addi {scaled}, {value} : index")
            value = summed
        return value

    # -- statements ---------------------------------------------------------- #

    def load_vec(self, scope: _Scope) -> str:
        tensor = self.choice(VEC_TENSORS)
        row = self.row_offset(scope, TILE_ROWS, ROWS)
        col = self.constant_index(0)
        tile = self.fresh("t")
        self.emit(
            f"{tile} = pypto.tile.load %{tensor}[{row}, {col}] : {VEC_TENSOR} -> {VEC_TILE}"
        )
        scope.vec_tiles.append(tile)
        return tile

    def any_vec_tile(self, scope: _Scope) -> str:
        if not scope.vec_tiles or self.integer(0, 1) == 0:
            return self.load_vec(scope)
        return self.choice(scope.vec_tiles)

    def store_vec(self, scope: _Scope) -> None:
        tile = self.any_vec_tile(scope)
        tensor = self.choice(VEC_TENSORS)
        row = self.row_offset(scope, TILE_ROWS, ROWS)
        col = self.constant_index(0)
        self.emit(
            f"pypto.tile.store {tile}, %{tensor}[{row}, {col}] : {VEC_TILE}, {VEC_TENSOR}"
        )

    def in_place_update(self, scope: _Scope) -> None:
        """`x[w] = f(x[w'])` where `w'` is `w` or a window overlapping it."""
        row = self.row_offset(scope, TILE_ROWS + 2, ROWS)
        col = self.constant_index(0)
        tile = self.fresh("t")
        self.emit(
            f"{tile} = pypto.tile.load %x[{row}, {col}] : {VEC_TENSOR} -> {VEC_TILE}"
        )
        updated = self.fresh("u")
        self.emit(
            f"{updated} = pypto.tile.adds {tile}, {self.constant_f32()} : {VEC_TILE}, f32"
        )
        shift = self.integer(0, 2)
        target = row
        if shift:
            target = self.fresh("o")
            self.emit(
                f"{target} = arith.addi {row}, {self.constant_index(shift)} : index"
            )
        self.emit(
            f"pypto.tile.store {updated}, %x[{target}, {col}] : {VEC_TILE}, {VEC_TENSOR}"
        )
        scope.vec_tiles.append(updated)

    def vec_math(self, scope: _Scope) -> None:
        kind = self.integer(0, 4)
        lhs = self.any_vec_tile(scope)
        result = self.fresh("m")
        if kind == 0:
            rhs = self.any_vec_tile(scope)
            op = self.choice(BINARY_OPS)
            self.emit(f"{result} = pypto.tile.{op} {lhs}, {rhs} : {VEC_TILE}")
        elif kind == 1:
            scalar = (
                self.choice(scope.scalars) if scope.scalars else self.constant_f32()
            )
            op = self.choice(SCALAR_OPS)
            self.emit(f"{result} = pypto.tile.{op} {lhs}, {scalar} : {VEC_TILE}, f32")
        elif kind == 2:
            op = self.choice(UNARY_OPS)
            self.emit(f"{result} = pypto.tile.{op} {lhs} : {VEC_TILE}")
        elif kind == 3:
            reduced = self.fresh("r")
            op = self.choice(("row_sum", "row_max"))
            self.emit(f"{reduced} = pypto.tile.{op} {lhs} : {VEC_TILE} -> {ROW_TILE}")
            expand = self.choice(ROW_EXPAND_OPS)
            self.emit(
                f"{result} = pypto.tile.{expand} {lhs}, {reduced} : {VEC_TILE}, {ROW_TILE}"
            )
        else:
            element = self.fresh("e")
            r, c = self.integer(0, TILE_ROWS - 1), self.integer(0, TILE_COLS - 1)
            self.emit(
                f"{element} = pypto.tile.read {lhs}[{self.constant_index(r)}, "
                f"{self.constant_index(c)}] : {VEC_TILE}"
            )
            scope.scalars.append(element)
            target = self.any_vec_tile(scope)
            r, c = self.integer(0, TILE_ROWS - 1), self.integer(0, TILE_COLS - 1)
            self.emit(
                f"{result} = pypto.tile.write {element}, {target}[{self.constant_index(r)}, "
                f"{self.constant_index(c)}] : {VEC_TILE}"
            )
        scope.vec_tiles.append(result)

    def matmul(self, scope: _Scope, acc: str | None) -> str:
        """Load an A window and B, move them to L0 and multiply (accumulating into `acc`)."""
        row = self.row_offset(scope, TILE_ROWS, ROWS)
        zero = self.constant_index(0)
        a_mat, b_mat = self.fresh("am"), self.fresh("bm")
        self.emit(
            f"{a_mat} = pypto.tile.load %a[{row}, {zero}] : {A_TENSOR} -> {A_MAT}"
        )
        self.emit(
            f"{b_mat} = pypto.tile.load %b[{zero}, {zero}] : {B_TENSOR} -> {B_MAT}"
        )
        a_left, b_right = self.fresh("al"), self.fresh("br")
        if self.integer(0, 1):
            self.emit(f"{a_left} = pypto.tile.move {a_mat} : {A_MAT} -> {A_LEFT}")
        else:
            self.emit(
                f"{a_left} = pypto.tile.extract {a_mat}[{zero}, {zero}] : {A_MAT} -> {A_LEFT}"
            )
        self.emit(
            f"{b_right} = pypto.tile.extract {b_mat}[{zero}, {zero}] : {B_MAT} -> {B_RIGHT}"
        )
        product = self.fresh("p")
        if acc is None:
            self.emit(
                f"{product} = pypto.tile.matmul {a_left}, {b_right} : "
                f"{A_LEFT}, {B_RIGHT} -> {ACC_TILE}"
            )
        else:
            self.emit(
                f"{product} = pypto.tile.matmul_acc {acc}, {a_left}, {b_right} : "
                f"{ACC_TILE}, {A_LEFT}, {B_RIGHT}"
            )
        return product

    def store_acc(self, scope: _Scope, acc: str) -> None:
        row = self.row_offset(scope, TILE_ROWS, ROWS)
        zero = self.constant_index(0)
        self.emit(
            f"pypto.tile.store {acc}, %c[{row}, {zero}] : {ACC_TILE}, "
            f"!pypto.tensor<{ROWS}x{MM_N}xf32>"
        )

    def cross_core(self, scope: _Scope) -> None:
        """A push to the vector core followed by the pop that receives it."""
        self.emit(f"pypto.tile.tpush_to_aiv {self.any_vec_tile(scope)} : {VEC_TILE}")
        received = self.fresh("q")
        self.emit(f"{received} = pypto.tile.tpop_from_aic : {VEC_TILE}")
        scope.vec_tiles.append(received)

    def conditional(self, scope: _Scope) -> None:
        """An `scf.if` on a loop variable, yielding a tile, with a store in one branch."""
        var = scope.loop_vars[-1]
        pivot = self.constant_index(self.integer(var.low, var.high))
        cond = self.fresh("cond")
        self.emit(f"{cond} = arith.cmpi slt, {var.name}, {pivot} : index")
        result = self.fresh("sel")
        self.emit(f"{result} = scf.if {cond} -> ({VEC_TILE}) {{")
        self.indent += 1
        then_scope = scope.copy()
        self.store_vec(then_scope)
        self.vec_math(then_scope)
        self.emit(f"scf.yield {then_scope.vec_tiles[-1]} : {VEC_TILE}")
        self.indent -= 1
        self.emit("} else {")
        self.indent += 1
        self.emit(f"scf.yield {self.any_vec_tile(scope.copy())} : {VEC_TILE}")
        self.indent -= 1
        self.emit("}")
        scope.vec_tiles.append(result)

    def statement(self, scope: _Scope) -> None:
        kind = self.integer(0, 7)
        if kind == 0:
            self.load_vec(scope)
        elif kind in (1, 2):
            self.vec_math(scope)
        elif kind == 3:
            self.store_vec(scope)
        elif kind == 4:
            self.in_place_update(scope)
        elif kind == 5:
            self.store_acc(scope, self.matmul(scope, None))
        elif kind == 6 and scope.loop_vars:
            self.conditional(scope)
        else:
            self.cross_core(scope)

    # -- loops ---------------------------------------------------------------- #

    def bound(self, value: int, dynamic: bool) -> str:
        if not dynamic:
            return self.constant_index(value)
        name = f"%n{len(self.index_args)}"
        self.params.append(f"{name}: index")
        self.index_args[name[1:]] = value
        return name

    def pipeline(self, scope: _Scope, max_stages: int) -> list[tuple[str, str]]:
        """A pipeline loop with a random body; returns its results and their types."""
        stages = self.integer(1, max_stages)
        step = self.integer(1, 3)
        lb = self.integer(0, 3)
        trip = self.integer(0, 3) * stages + self.integer(-1, stages)
        dynamic_lb, dynamic_ub = self.integer(0, 1) == 1, self.integer(0, 1) == 1
        if dynamic_ub and self.integer(0, 4) == 0:
            ub = lb - self.integer(1, 3)  # ub < lb: runs nothing
        else:
            ub = lb + max(trip, 0) * step - self.integer(0, step - 1)
        last = lb + (max(0, -(-(ub - lb) // step)) - 1) * step
        lb_name = self.bound(lb, dynamic_lb)
        ub_name = self.bound(ub, dynamic_ub)
        step_name = self.constant_index(step)

        carried_index = self.integer(0, 1) == 1
        carried_tile = self.integer(0, 2)  # 0: none, 1: vec accumulator, 2: matmul acc
        inits: list[tuple[str, str, str]] = []  # (block arg, init value, type)
        if carried_index:
            inits.append(
                (self.fresh("ia"), self.constant_index(self.integer(0, 5)), "index")
            )
        if carried_tile == 1:
            inits.append((self.fresh("ta"), self.any_vec_tile(scope), VEC_TILE))
        elif carried_tile == 2:
            zero = self.fresh("zf")
            self.emit(f"{zero} = arith.constant 0.0 : f32")
            init = self.fresh("acc0")
            self.emit(f"{init} = pypto.tile.full {zero} : f32 -> {ACC_TILE}")
            inits.append((self.fresh("ma"), init, ACC_TILE))

        var = LoopVar(self.fresh("i"), lb, max(lb, last))
        policy = ""
        if self.integer(0, 3) == 0:
            policy += " overlap_stores = false"
        if self.integer(0, 3) == 0:
            policy += " double_buffer_acc = true"
        results = [self.fresh("res") for _ in inits]
        header = f"pypto.pipeline {var.name} = {lb_name} to {ub_name} step {step_name} stages {stages}{policy}"
        if inits:
            assignments = ", ".join(f"{arg} = {init}" for arg, init, _ in inits)
            types = ", ".join(typ for _, _, typ in inits)
            header = (
                f"{', '.join(results)} = {header} iter_args({assignments}) -> ({types})"
            )
        with self.region(header):
            body = scope.copy()
            body.loop_vars.append(var)
            body.vec_tiles.extend(arg for arg, _, typ in inits if typ == VEC_TILE)
            yielded = self.loop_body(body, inits, max_stages)
            if inits:
                types = ", ".join(typ for _, _, typ in inits)
                self.emit(f"pypto.yield {', '.join(yielded)} : {types}")
        return [
            (result, typ) for result, (_, _, typ) in zip(results, inits, strict=True)
        ]

    def use_results(self, scope: _Scope, results: list[tuple[str, str]]) -> None:
        """Make a loop's tile results available to later statements (or store them)."""
        for name, typ in results:
            if typ == VEC_TILE:
                scope.vec_tiles.append(name)
            elif typ == ACC_TILE:
                self.store_acc(scope, name)

    def loop_body(
        self, scope: _Scope, inits: list[tuple[str, str, str]], max_stages: int
    ) -> list[str]:
        for _ in range(self.integer(1, 4)):
            self.statement(scope)
        if self.depth < 1 and self.integer(0, 3) == 0:
            self.depth += 1
            self.use_results(scope, self.pipeline(scope, max(2, max_stages // 2)))
            self.depth -= 1
        yielded: list[str] = []
        for arg, _, typ in inits:
            if typ == "index":
                value = self.fresh("iv")
                self.emit(
                    f"{value} = arith.addi {arg}, {scope.loop_vars[-1].name} : index"
                )
            elif typ == VEC_TILE:
                value = self.fresh("tv")
                self.emit(
                    f"{value} = pypto.tile.add {arg}, {self.any_vec_tile(scope)} : {VEC_TILE}"
                )
            else:
                value = self.matmul(scope, arg)
            yielded.append(value)
        return yielded


@st.composite
def kernels(draw: st.DrawFn, max_stages: int = 8) -> GeneratedKernel:
    """A random valid kernel with one or two pipeline loops."""
    builder = _KernelBuilder(draw=draw)
    scope = _Scope()
    returned: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(1, 2))):
        results = builder.pipeline(scope, max_stages)
        builder.use_results(scope, results)
        returned.extend(results)
        if draw(st.booleans()):
            builder.statement(scope)
    tensors = [f"%{name}: {VEC_TENSOR}" for name in VEC_TENSORS]
    tensors += [
        f"%a: {A_TENSOR}",
        f"%b: {B_TENSOR}",
        f"%c: !pypto.tensor<{ROWS}x{MM_N}xf32>",
    ]
    signature = ", ".join([*tensors, *builder.params])
    body = "\n".join(builder.lines)
    if returned:
        types = ", ".join(typ for _, typ in returned)
        names = ", ".join(name for name, _ in returned)
        header = f"func.func @kernel({signature}) -> ({types})"
        ret = f"func.return {names} : {types}"
    else:
        header = f"func.func @kernel({signature})"
        ret = "func.return"
    text = f"{header} {{\n{body}\n  {ret}\n}}\n"
    return GeneratedKernel(text=text, index_args=dict(builder.index_args))
