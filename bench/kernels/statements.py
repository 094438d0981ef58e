"""
The statements of the generated kernels: loads, stores, in-place updates, tile
math, element reads and writes, matmul paths, cross-core push/pop and `scf.if`.
"""

from __future__ import annotations

from bench.kernels.emitter import KernelEmitter, Scope, Terms
from bench.kernels.vocabulary import (
    A_LEFT,
    A_MAT,
    A_TENSOR,
    ACC_TILE,
    B_MAT,
    B_RIGHT,
    B_TENSOR,
    BF16_TILE,
    BINARY_OPS,
    C_TENSOR,
    CHANNELS,
    ROW_EXPAND_OPS,
    ROW_OPS,
    ROW_TILE,
    ROWS,
    SCALAR_OPS,
    TILE_COLS,
    TILE_ROWS,
    UNARY_OPS,
    VEC_TENSOR,
    VEC_TENSORS,
    VEC_TILE,
)


class StatementBuilder(KernelEmitter):
    """Emits the statements of a block, drawing every decision from hypothesis."""

    def emit_load(self, tensor: str, row: str) -> str:
        """A vector tile loaded from rows `row ...` of `%tensor`."""
        return self.emit_value(
            "t",
            f"pypto.tile.load %{tensor}[{row}, {self.constant_index(0)}] : "
            f"{VEC_TENSOR} -> {VEC_TILE}",
        )

    def load_vec(self, scope: Scope) -> str:
        tensor = self.choice(VEC_TENSORS)
        bind = self.bindings and not self.replicated and self.sometimes(3)
        slot = self.slot_index(scope) if bind else None
        tile = self.emit_load(tensor, self.row_offset(scope))
        if bind:
            tile = self.bind(tile, slot)
        scope.vec_tiles.append(tile)
        return tile

    def slot_index(self, scope: Scope) -> str | None:
        """The slot of a binding: none (one slot), 0, 1, or `i % 2` (two slots)."""
        kind = self.integer(0, 3)
        if kind == 3 and scope.loop_vars:
            self.features.add("binding to slot i % 2")
            two = self.constant_index(2)
            return self.emit_value(
                "k", f"arith.remsi {scope.loop_vars[-1].name}, {two} : index"
            )
        if kind in (1, 2):
            self.features.add("binding to a constant slot")
            return self.constant_index(kind - 1)
        self.features.add("binding to an allocation of one slot")
        return None

    def bind(self, tile: str, slot: str | None) -> str:
        """`tile` bound to a new allocation, or to one declared before (of its kind)."""
        slots = 1 if slot is None else 2
        kind = [line for line in self.declarations if f" slots {slots} " in line]
        if kind and self.integer(0, 1):
            allocation = self.choice(kind).split()[0]
        else:
            allocation = self.fresh("m")
            name = allocation[1:]
            self.declarations.append(
                f'{allocation} = pypto.alloc "{name}" slots {slots} : !pypto.alloc<vec>'
            )
        index = "" if slot is None else f"[{slot}]"
        return self.emit_value(
            "b", f"pypto.bind {tile} to {allocation}{index} : {VEC_TILE}"
        )

    def any_vec_tile(self, scope: Scope) -> str:
        if scope.vec_tiles and self.integer(0, 1):
            return self.choice(scope.vec_tiles)
        return self.load_vec(scope)

    def store_vec(self, scope: Scope) -> None:
        tile = self.any_vec_tile(scope)
        tensor = self.choice(VEC_TENSORS)
        row = self.row_offset(scope)
        self.emit_store(tile, tensor, row, f"{VEC_TILE}, {VEC_TENSOR}")

    def in_place_update(self, scope: Scope) -> None:
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

    def note_in_place(self, scope: Scope, terms: Terms, delta: int) -> None:
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

    def vec_math(self, scope: Scope) -> None:
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
            # PyPTO's scratch tile: none (the target prints one) or the
            # latest tile, decided without a draw of its own, which would
            # change the fixed sample of `test_generator_covers_every_feature`.
            operands, types = lhs, VEC_TILE
            if ROW_EXPAND_OPS.index(expand):
                operands += f", {(scope.vec_tiles or [lhs])[-1]}"
                types += f", {VEC_TILE}"
                self.features.add("row op scratch")
            reduced = self.emit_value(
                "r", f"pypto.tile.{op} {operands} : {types} -> {ROW_TILE}"
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

    def read_element(self, scope: Scope, tile: str) -> str:
        r, c = self.integer(0, TILE_ROWS - 1), self.integer(0, TILE_COLS - 1)
        element = self.emit_value(
            "e",
            f"pypto.tile.read {tile}[{self.constant_index(r)}, "
            f"{self.constant_index(c)}] : {VEC_TILE}",
        )
        scope.scalars.append(element)
        self.features.add("tile.read")
        return element

    def matmul(self, scope: Scope, acc: str | None) -> str:
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

    def store_acc(self, scope: Scope, acc: str) -> None:
        self.emit_store(acc, "c", self.row_offset(scope), f"{ACC_TILE}, {C_TENSOR}")

    def matmul_chain(self, scope: Scope) -> None:
        product = self.matmul(scope, None)
        if self.sometimes(3):
            product = self.matmul(scope, product)
        self.store_acc(scope, product)

    def cross_core(self, scope: Scope) -> None:
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

    def conditional(self, scope: Scope) -> None:
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

    def branch(self, scope: Scope) -> None:
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

    def statement(self, scope: Scope, *, allow_if: bool = True) -> None:
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

    def note_leftovers(self, scope: Scope) -> None:
        if any(scope.pending.values()):
            self.features.add("tile left in a channel")
