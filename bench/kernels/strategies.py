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

from dataclasses import dataclass

from hypothesis import strategies as st

from bench.kernels.emitter import LoopVar, Scope
from bench.kernels.statements import StatementBuilder
from bench.kernels.vocabulary import (
    ACC_TILE,
    F32,
    INDEX,
    TENSOR_PARAMS,
    VEC_TENSOR,
    VEC_TENSORS,
    VEC_TILE,
)


@dataclass(frozen=True)
class GeneratedKernel:
    """A kernel's text, the values of its `index` parameters, and what it exercises."""

    text: str
    index_args: dict[str, int]
    features: frozenset[str] = frozenset()
    entry: str = "kernel"


class _KernelBuilder(StatementBuilder):
    """Emits one kernel, drawing every decision from hypothesis."""

    def bound(self, value: int, dynamic: bool) -> str:
        if not dynamic:
            return self.constant_index(value)
        name = f"%n{len(self.index_args)}"
        self.params.append(f"{name}: index")
        self.index_args[name[1:]] = value
        return name

    def loop_bounds(self, scope: Scope, stages: int) -> tuple[str, str, LoopVar]:
        """`lb`, `ub` and the induction variable (without its name yet)."""
        step = self.integer(1, 3) if not self.rotatable or self.sometimes(3) else 1
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
            lb = self.integer(0, 3) if not self.rotatable or self.sometimes(3) else 0
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

    def iter_args(self, scope: Scope) -> list[tuple[str, str, str]]:
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
            if self.pypto_form:
                init = self.matmul(scope, None)
            else:
                zero = self.constant("0.0 : f32", "zf")
                init = self.emit_value(
                    "acc", f"pypto.tile.full {zero} : f32 -> {ACC_TILE}"
                )
            inits.append((self.fresh("ma"), init, ACC_TILE))
            self.features.add("matmul accumulator iter_arg")
        return inits

    def pipeline(self, scope: Scope, max_stages: int) -> list[tuple[str, str]]:
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
        self.replicated += stages > 1
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
        self.replicated -= stages > 1
        return [
            (result, typ) for result, (_, _, typ) in zip(results, inits, strict=True)
        ]

    def use_results(self, scope: Scope, results: list[tuple[str, str]]) -> None:
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
        scope: Scope,
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
def kernels(
    draw: st.DrawFn,
    max_stages: int = 8,
    *,
    rotatable: bool = False,
    bindings: bool = False,
    pypto_form: bool = False,
) -> GeneratedKernel:
    """
    A random valid kernel with one or two pipeline loops of at most
    `max_stages`; `rotatable`: loops mostly with step 1 and start 0;
    `bindings`: loads bound to declared allocations (`KernelEmitter.bindings`);
    `pypto_form`: one that has a PyPTO print (`KernelEmitter.pypto_form`).
    """
    builder = _KernelBuilder(
        draw=draw,
        max_stages=max_stages,
        rotatable=rotatable,
        bindings=bindings,
        pypto_form=pypto_form,
    )
    scope = Scope()
    returned: list[tuple[str, str]] = []
    for _ in range(1 + builder.sometimes(3)):
        results = builder.pipeline(scope, max_stages)
        builder.use_results(scope, results)
        returned.extend(results)
        if builder.sometimes(3):
            builder.statement(scope)
    builder.note_leftovers(scope)
    signature = ", ".join([*TENSOR_PARAMS, *builder.params])
    constants = [f"  {line}" for line in builder.declarations] + [
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
