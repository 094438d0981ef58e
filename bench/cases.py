"""
The benchmark cases: synthetic pypto modules as MLIR text, and their families.

Every generator returns a whole module (functions only, implicit module) that
`lower-pipeline-loops` followed by `canonicalize-io-order` accepts. The
kernels are made of a few shapes that real tile kernels have:

* a row softmax pipeline (2-D windows, no iter_args) and a matmul K loop
  (`mat -> left/right` extracts, an `acc` iter_arg), with a static remainder;
* a body of "items" on a 1-D tensor: each item offsets a tile window by 64
  elements (`arith.addi` chain), loads it, adds 1 and stores it, so that one
  block holds as many stores to one tensor as wanted (`WindowMode`);
* pipelines nested in pipelines.

A `Family` scales one kind of module by one parameter (`FAMILIES`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.parser import Parser

from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops

TILE_ELEMENTS = 64
"""The elements of the 1-D tile of an item (its window extent)."""

_ROW_TILE = "!pypto.tile<16x64xf32, vec>"
_ROW_STAT = "!pypto.tile<16x1xf32, vec>"
_ITEM_TILE = f"!pypto.tile<{TILE_ELEMENTS}xf32, vec>"
_ACC_TILE = "!pypto.tile<16x256xf32, acc>"


def _tensor(*shape: int, element: str = "f32") -> str:
    return f"!pypto.tensor<{'x'.join(map(str, shape))}x{element}>"


def _function(name: str, arguments: str, body: list[str]) -> list[str]:
    return [f"func.func @{name}({arguments}) {{", *body, "  func.return", "}"]


def _constants(*values: int) -> list[str]:
    return [f"  %c{v} = arith.constant {v} : index" for v in sorted(set(values))]


def _loop(
    kind: str, index: str, trip: str, stages: int | None, iter_args: str = ""
) -> str:
    """The header of a loop from 0 to `trip` step 1: `pypto.pipeline` or `scf.for`."""
    stage_text = f" stages {stages}" if stages is not None else ""
    return f"{kind} %{index} = %c0 to {trip} step %c1{stage_text}{iter_args} {{"


def _indent(lines: list[str], depth: int) -> list[str]:
    return ["  " * depth + line for line in lines]


# --------------------------------------------------------------------------- #
# Realistic kernels: the `loops` and `unroll` families
# --------------------------------------------------------------------------- #


def softmax_kernel(name: str, trip: int, stages: int | None) -> list[str]:
    """
    Row softmax of a `(16*trip)x64` matrix, 16 rows per tile; a pipeline with
    `stages`, or an `scf.for` when `stages` is None.
    """
    rows = 16 * trip
    tensor = _tensor(rows, 64)
    kind = "scf.for" if stages is None else "pypto.pipeline"
    body = [
        "    %rows = arith.constant 16 : index",
        "    %row = arith.muli %i, %rows : index",
        f"    %t = pypto.tile.load %x[%row, %c0] : {tensor} -> {_ROW_TILE}",
        f"    %max = pypto.tile.row_max %t : {_ROW_TILE} -> {_ROW_STAT}",
        f"    %sh = pypto.tile.row_expand_sub %t, %max : {_ROW_TILE}, {_ROW_STAT}",
        f"    %e = pypto.tile.exp %sh : {_ROW_TILE}",
        f"    %sum = pypto.tile.row_sum %e : {_ROW_TILE} -> {_ROW_STAT}",
        f"    %y = pypto.tile.row_expand_div %e, %sum : {_ROW_TILE}, {_ROW_STAT}",
        f"    pypto.tile.store %y, %out[%row, %c0] : {_ROW_TILE}, {tensor}",
    ]
    return _function(
        name,
        f"%x: {tensor}, %out: {tensor}",
        [
            *_constants(0, 1, trip),
            f"  {_loop(kind, 'i', f'%c{trip}', stages)}",
            *body,
            "  }",
        ],
    )


def matmul_kernel(name: str, trip: int, stages: int | None) -> list[str]:
    """
    `c = a @ b` with a `16x(64*trip)` by `(64*trip)x256` product accumulated
    over K chunks of 64 in `acc`; a pipeline with `stages`, or an `scf.for`.
    """
    depth = 64 * trip
    a, b = _tensor(16, depth, element="bf16"), _tensor(depth, 256, element="bf16")
    c = _tensor(16, 256)
    a_mat, b_mat = "!pypto.tile<16x64xbf16, mat>", "!pypto.tile<64x256xbf16, mat>"
    a_left, b_right = "!pypto.tile<16x64xbf16, left>", "!pypto.tile<64x256xbf16, right>"
    kind, terminator = (
        ("scf.for", "scf.yield")
        if stages is None
        else ("pypto.pipeline", "pypto.yield")
    )
    carried = f" iter_args(%partial = %init) -> ({_ACC_TILE})"
    body = [
        "    %chunk = arith.constant 64 : index",
        "    %k = arith.muli %i, %chunk : index",
        f"    %a_l1 = pypto.tile.load %a[%c0, %k] : {a} -> {a_mat}",
        f"    %b_l1 = pypto.tile.load %b[%k, %c0] : {b} -> {b_mat}",
        f"    %a_l0 = pypto.tile.extract %a_l1[%c0, %c0] : {a_mat} -> {a_left}",
        f"    %b_l0 = pypto.tile.extract %b_l1[%c0, %c0] : {b_mat} -> {b_right}",
        f"    %next = pypto.tile.matmul_acc %partial, %a_l0, %b_l0 : "
        f"{_ACC_TILE}, {a_left}, {b_right}",
        f"    {terminator} %next : {_ACC_TILE}",
    ]
    return _function(
        name,
        f"%a: {a}, %b: {b}, %c: {c}",
        [
            *_constants(0, 1, trip),
            "  %zero = arith.constant 0.0 : f32",
            f"  %init = pypto.tile.full %zero : f32 -> {_ACC_TILE}",
            f"  %acc = {_loop(kind, 'i', f'%c{trip}', stages, carried)}",
            *body,
            "  }",
            f"  pypto.tile.store %acc, %c[%c0, %c0] : {_ACC_TILE}, {c}",
        ],
    )


def kernels_module(count: int, trip: int, stages: int | None) -> str:
    """`count` pairs of softmax and matmul functions (see the two kernels)."""
    lines: list[str] = []
    for n in range(count):
        lines += softmax_kernel(f"softmax_{n}", trip, stages)
        lines += matmul_kernel(f"matmul_{n}", trip, stages)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- #
# Blocks of many stores to one tensor: the `stores-*` and `stages-*` families
# --------------------------------------------------------------------------- #


class WindowMode(Enum):
    """Where the items of a body load and store."""

    DISJOINT = "disjoint"
    SAME = "same"
    IN_PLACE = "in-place"

    @property
    def description(self) -> str:
        return _WINDOW_MODES[self]


_WINDOW_MODES = {
    WindowMode.DISJOINT: "load %x, store %out, each item at its own window",
    WindowMode.SAME: "load %x at own windows, every store to one window of %out",
    WindowMode.IN_PLACE: "load and store %out, each item at its own window",
}


def _items(count: int, base: str, mode: WindowMode, prefix: str) -> list[str]:
    """
    `count` items at offsets `base`, `base + 64`, ...; names start with
    `prefix`; `%one` (f32) and `%c64` must be defined.
    """
    source = "%out" if mode is WindowMode.IN_PLACE else "%x"
    lines: list[str] = []
    offset = base
    for k in range(count):
        if k:
            lines.append(f"%{prefix}o{k} = arith.addi {offset}, %c64 : index")
            offset = f"%{prefix}o{k}"
        target = "%c0" if mode is WindowMode.SAME else offset
        lines += [
            f"%{prefix}t{k} = pypto.tile.load {source}[{offset}] : "
            f"!pypto.tensor<?> -> {_ITEM_TILE}",
            f"%{prefix}y{k} = pypto.tile.adds %{prefix}t{k}, %one : {_ITEM_TILE}, f32",
            f"pypto.tile.store %{prefix}y{k}, %out[{target}] : "
            f"{_ITEM_TILE}, !pypto.tensor<?>",
        ]
    return lines


def _items_function(
    name: str, elements: int, arguments: str, constants: list[str], body: list[str]
) -> str:
    """A function over `%x` and `%out` of `elements` f32 (extra `arguments`)."""
    tensor = _tensor(elements)
    lines = _function(
        name,
        f"%x: {tensor}, %out: {tensor}{arguments}",
        [*constants, "  %one = arith.constant 1.0 : f32", *body],
    )
    return "\n".join(lines).replace("!pypto.tensor<?>", tensor) + "\n"


def items_module(
    items: int, stages: int, trip: int | None, mode: WindowMode = WindowMode.DISJOINT
) -> str:
    """
    One pipeline `stages` whose body has `items` items on one tensor; `trip`
    static iterations, or a dynamic upper bound (an argument `%n`) when None.
    After lowering, a main-loop body holds `items * stages` stores.
    """
    span = items * TILE_ELEMENTS
    upper = "%n" if trip is None else f"%c{trip}"
    body = [
        f"  {_loop('pypto.pipeline', 'i', upper, stages)}",
        f"    %cspan = arith.constant {span} : index",
        "    %base = arith.muli %i, %cspan : index",
        *_indent(_items(items, "%base", mode, ""), 2),
        "  }",
    ]
    # Dynamic bounds: the tensor holds the 2*stages iterations a test would run.
    elements = span * (trip if trip is not None else 2 * stages)
    constants = _constants(0, 1, 64, *(() if trip is None else (trip,)))
    arguments = ", %n: index" if trip is None else ""
    return _items_function("items", elements, arguments, constants, body)


# --------------------------------------------------------------------------- #
# Nested pipelines: the `nesting` family
# --------------------------------------------------------------------------- #


def nested_module(depth: int, items: int) -> str:
    """
    `depth` nested pipelines, each with 2 iterations and `stages 2`; the
    innermost body has `items` disjoint items, every level adds its offset.
    After lowering the innermost body appears `2**depth` times.
    """
    stride = items * TILE_ELEMENTS
    strides = [stride * 2 ** (depth - 1 - level) for level in range(depth)]
    lines: list[str] = []
    outer = "%c0"
    for level, level_stride in enumerate(strides):
        lines += _indent(
            [
                _loop("pypto.pipeline", f"i{level}", "%c2", 2),
                f"  %s{level} = arith.constant {level_stride} : index",
                f"  %m{level} = arith.muli %i{level}, %s{level} : index",
                f"  %b{level} = arith.addi {outer}, %m{level} : index",
            ],
            level + 1,
        )
        outer = f"%b{level}"
    lines += _indent(_items(items, outer, WindowMode.DISJOINT, ""), depth + 1)
    lines += ["  " * level + "}" for level in range(depth, 0, -1)]
    return _items_function(
        "nested", stride * 2**depth, "", _constants(0, 1, 2, 64), lines
    )


# --------------------------------------------------------------------------- #
# The families
# --------------------------------------------------------------------------- #

DEFAULT_SIZES = (1_000, 2_500, 5_000, 10_000, 25_000, 50_000)
"""Ops after lowering of the `loops` and `unroll` families."""
DEFAULT_STAGES = (8, 16, 32, 64)
"""F of the `stages-static` and `stages-dynamic` families."""

KERNEL_STAGES = 4
KERNEL_TRIP = 10
"""The `loops` kernels: 10 iterations with 4 stages, so a 2-copy remainder."""
NESTED_ITEMS = 32
STATIC_ITEMS = 12
DYNAMIC_ITEMS = 3


@dataclass(frozen=True)
class Case:
    """One module to measure, and the `scf.for` twin whose unrolling it matches."""

    family: str
    parameter: int
    text: str
    unroll_twin: str | None = None


@dataclass(frozen=True)
class Scale:
    """How far the families go: the `--sizes` and `--stages` options."""

    sizes: Sequence[int]
    """Ops after lowering of the `loops` and `unroll` modules."""
    stages: Sequence[int]
    """F of the `stages-*` modules."""


@dataclass(frozen=True)
class Family:
    """A kind of module, scaled by one parameter."""

    name: str
    description: str
    parameter: str
    """What the parameter counts."""
    parameters: Callable[[Scale], Sequence[int]]
    """The parameters to run at a scale."""
    make: Callable[[int], Case]


def parse(ctx: Context, text: str) -> ModuleOp:
    """The module of `text`, parsed in `ctx`."""
    return Parser(ctx, text).parse_module()


MAX_COPIES = 1 << 16
"""
The lowering's `max-copies` in the benchmark: above the largest case (the
`stages-dynamic` cascade of F = 128 makes 8,256 copies), not the default 1,024.
"""


def count_ops(module: Operation) -> int:
    """The ops in `module`, itself included."""
    return sum(1 for _ in walk_ops(module))


def lowered_size(case: Case) -> int:
    """The ops of the module of `case` after `lower-pipeline-loops` (module excluded)."""
    module = parse(pypto_context(), case.text)
    LowerPipelineLoopsPass(max_copies=MAX_COPIES).apply(pypto_context(), module)
    return count_ops(module) - 1


def _kernel_pairs(sizes: Sequence[int], trip: int) -> list[int]:
    """The numbers of kernel pairs whose lowered module has about `sizes` ops."""
    lowered = parse(pypto_context(), kernels_module(1, trip, KERNEL_STAGES))
    LowerPipelineLoopsPass().apply(pypto_context(), lowered)
    per_pair = count_ops(lowered) - 1  # without the module
    return sorted({max(1, round(size / per_pair)) for size in sizes})


def _kernels(pairs: int) -> Case:
    text = kernels_module(pairs, KERNEL_TRIP, KERNEL_STAGES)
    return Case("loops", pairs, text)


def _unroll(pairs: int) -> Case:
    # As many iterations as stages: both passes make `stages` copies of each body.
    text = kernels_module(pairs, KERNEL_STAGES, KERNEL_STAGES)
    twin = kernels_module(pairs, KERNEL_STAGES, None)
    return Case("unroll", pairs, text, twin)


def _stores(mode: WindowMode) -> Family:
    def make(stores: int) -> Case:
        text = items_module(stores // 2, 2, 2, mode)
        return Case(f"stores-{mode.value}", stores, text)

    return Family(
        f"stores-{mode.value}",
        f"one block with N stores to one tensor: {mode.description}",
        "stores",
        lambda _: (250, 500, 1_000, 2_000),
        make,
    )


FAMILIES: tuple[Family, ...] = (
    Family(
        "loops",
        f"pairs of softmax and matmul kernels, {KERNEL_TRIP} iterations, "
        f"stages {KERNEL_STAGES}",
        "kernel pairs",
        lambda scale: _kernel_pairs(scale.sizes, KERNEL_TRIP),
        _kernels,
    ),
    Family(
        "unroll",
        f"the same kernels with {KERNEL_STAGES} iterations; lower / unroll against "
        "scf-for-loop-unroll",
        "kernel pairs",
        lambda scale: _kernel_pairs(scale.sizes, KERNEL_STAGES),
        _unroll,
    ),
    *(_stores(mode) for mode in WindowMode),
    Family(
        "stages-static",
        f"one pipeline, {STATIC_ITEMS} items, 2F-1 iterations (F-1 remainder copies)",
        "F",
        lambda scale: scale.stages,
        lambda f: Case("stages-static", f, items_module(STATIC_ITEMS, f, 2 * f - 1)),
    ),
    Family(
        "stages-dynamic",
        f"one pipeline, {DYNAMIC_ITEMS} items, dynamic upper bound "
        "(F + F(F-1)/2 copies)",
        "F",
        lambda scale: scale.stages,
        lambda f: Case("stages-dynamic", f, items_module(DYNAMIC_ITEMS, f, None)),
    ),
    Family(
        "nesting",
        f"pipelines nested D deep, stages 2 each, {NESTED_ITEMS} items innermost",
        "depth",
        lambda _: (2, 3, 4, 5, 6),
        lambda depth: Case("nesting", depth, nested_module(depth, NESTED_ITEMS)),
    ),
)
