"""
Parse and print cost of every `pypto` op, type and attribute, per op, as a
ratio to `arith.addi`, in one process.

    python -m bench dialect-io [--ops N] [--repeat R] [--only KIND ...]

Every kind is a function of N ops of that kind, on the arguments of one
signature shared by all kinds; the time of that function without ops is
subtracted, so that a ratio compares the ops alone. The type and attribute
rows are the extra cost of one occurrence: the time of ops that carry it
minus that of the same ops without it (`IOKind.over`), per occurrence (a
type is cast to 4 times per op, so that it stands out of the noise). Times are
medians of `repeat` runs (`time.perf_counter`, a full collection before
each run), the kinds interleaved within a run.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import TypeVar

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from bench import command_line
from pypto_dialect.context import pypto_context

_TENSOR = "!pypto.tensor<128x64xf32>"
_T64 = "!pypto.tile<64x64xf32, vec>"
_ROW = "!pypto.tile<64x1xf32, vec>"
_LEFT = "!pypto.tile<16x64xbf16, left>"
_RIGHT = "!pypto.tile<64x256xbf16, right>"
_ACC = "!pypto.tile<16x256xf32, acc>"
_MAT = "!pypto.tile<128x256xbf16, mat>"

_ARGUMENTS = (
    f"%x: {_TENSOR}, %t: {_T64}, %u: {_T64}, %r: {_ROW}, %a: {_LEFT}, "
    f"%b: {_RIGHT}, %c: {_ACC}, %m: {_MAT}, %s: f32, %i: index, %j: index"
)
"""The signature of every measured function: the operands of all kinds."""

BASELINE = "arith.addi"
CAST = "cast to index (per value)"

_BINARY = ("add", "sub", "mul", "div", "max", "min")
_UNARY = ("exp", "neg", "abs", "sqrt", "rsqrt", "recip", "relu")


@dataclass(frozen=True)
class IOKind:
    """
    One measured kind: `op` is the text of one item (`{k}` is its number,
    results are `%y{k}`), made of the ops `ops`, and timed per `units` (per
    op by default). With `over`, the time per unit of that kind is
    subtracted (to time a type or an attribute alone).
    """

    name: str
    group: str
    op: str
    ops: tuple[str, ...]
    over: str | None = None
    per_item: int = 0

    @property
    def units(self) -> int:
        """The timed units (ops, or type occurrences) of one item."""
        return self.per_item or len(self.ops)


def _tile_kinds() -> list[IOKind]:
    def kind(name: str, syntax: str, *, result: bool = True) -> IOKind:
        op = f"pypto.tile.{name}"
        prefix = "%y{k} = " if result else ""
        return IOKind(op, "op", f"{prefix}{op} {syntax}", (op,))

    return [
        kind("load", f"%x[%i, %j] : {_TENSOR} -> {_T64}"),
        kind("store", f"%t, %x[%i, %j] : {_T64}, {_TENSOR}", result=False),
        kind("read", f"%t[%i, %j] : {_T64}"),
        kind("write", f"%s, %t[%i, %j] : {_T64}"),
        kind("extract", f"%m[%i, %j] : {_MAT} -> !pypto.tile<64x256xbf16, right>"),
        kind("move", f"%t : {_T64} -> !pypto.tile<64x64xf32, mat>"),
        kind("matmul", f"%a, %b : {_LEFT}, {_RIGHT} -> {_ACC}"),
        kind("matmul_acc", f"%c, %a, %b : {_ACC}, {_LEFT}, {_RIGHT}"),
        *(kind(name, f"%t, %u : {_T64}") for name in _BINARY),
        *(kind(f"{name}s", f"%t, %s : {_T64}, f32") for name in _BINARY),
        *(kind(name, f"%t : {_T64}") for name in _UNARY),
        kind("cast", f"%t : {_T64} -> !pypto.tile<64x64xbf16, vec>"),
        *(kind(name, f"%t : {_T64} -> {_ROW}") for name in ("row_sum", "row_max")),
        *(
            kind(f"row_expand_{name}", f"%t, %r : {_T64}, {_ROW}")
            for name in ("add", "sub", "mul", "div")
        ),
        kind("full", f"%s : f32 -> {_T64}"),
        kind("tpush_to_aiv", f"%t : {_T64}", result=False),
        kind("tpush_to_aic", f"%t : {_T64}", result=False),
        kind("tpop_from_aic", f": {_T64}"),
        kind("tpop_from_aiv", f": {_T64}"),
    ]


def _loop(name: str, group: str, dialect: str, *, carried: bool) -> IOKind:
    """An empty loop (implicit yield), or one carrying `%t` to an explicit yield."""
    loop = "pypto.pipeline" if dialect == "pypto" else "scf.for"
    stages = " stages 2" if dialect == "pypto" else ""
    head = f"{loop} %i{{k}} = %i to %j step %i{stages}"
    if not carried:
        return IOKind(name, group, f"{head} {{\n  }}", (loop,))
    yield_op = f"{dialect}.yield"
    text = (
        f"%y{{k}} = {head} iter_args(%v{{k}} = %t) -> ({_T64}) {{\n"
        f"    {yield_op} %v{{k}} : {_T64}\n  }}"
    )
    return IOKind(name, group, text, (loop, yield_op))


_CASTS = 4
"""The values of one `builtin.unrealized_conversion_cast` of a type row."""


def _cast(name: str, group: str, type_text: str) -> IOKind:
    """`_CASTS` index values cast to `type_text`, per cast value."""
    op = "builtin.unrealized_conversion_cast"
    values = ", ".join(["%i"] * _CASTS)
    indices = ", ".join(["index"] * _CASTS)
    types = ", ".join([type_text] * _CASTS)
    text = f"%y{{k}}:{_CASTS} = {op} {values} : {indices} to {types}"
    over = None if type_text == "index" else CAST
    return IOKind(name, group, text, (op,), over, per_item=_CASTS)


def _addi(name: str, group: str, attributes: str = "") -> IOKind:
    text = f"%y{{k}} = {BASELINE} %i, %j{attributes} : index"
    return IOKind(name, group, text, (BASELINE,), BASELINE if attributes else None)


def io_kinds() -> list[IOKind]:
    """The baseline, every pypto op, type and attribute, and upstream references."""
    return [
        _addi(BASELINE, "baseline"),
        *_tile_kinds(),
        _loop("pypto.pipeline", "op", "pypto", carried=False),
        _loop("pypto.pipeline iter_args + pypto.yield", "op", "pypto", carried=True),
        IOKind(
            "pypto.alloc + pypto.bind",
            "op",
            '%a{k} = pypto.alloc "a{k}" slots 2 : !pypto.alloc<vec>\n'
            f"  %y{{k}} = pypto.bind %t to %a{{k}}[%i] : {_T64}",
            ("pypto.alloc", "pypto.bind"),
        ),
        _cast("!pypto.tile", "type", _T64),
        _cast("!pypto.tensor", "type", _TENSOR),
        _addi(
            "#pypto.membership",
            "attribute",
            " {pypto.pipeline_membership = #pypto.membership<0:1, 2:3>}",
        ),
        _addi(
            "#pypto.memory_space", "attribute", " {space = #pypto.memory_space<vec>}"
        ),
        _loop("scf.for", "upstream", "scf", carried=False),
        _loop("scf.for iter_args + scf.yield", "upstream", "scf", carried=True),
        _cast(CAST, "upstream", "index"),
        _cast("vector<64x64xf32>", "upstream", "vector<64x64xf32>"),
        _addi("array<i64: 0, 1, 2, 3>", "upstream", " {a = array<i64: 0, 1, 2, 3>}"),
    ]


def module_text(op: str, items: int) -> str:
    """A function on the shared signature with `items` copies of `op`."""
    body = "".join(f"  {op.replace('{k}', str(k))}\n" for k in range(items))
    return f"func.func @f({_ARGUMENTS}) {{\n{body}  func.return\n}}\n"


@dataclass(frozen=True)
class DialectIORow:
    """
    Parse and print time (seconds) per op of a kind (per occurrence for a
    type or an attribute), and their ratios to the time per `arith.addi`.
    """

    kind: str
    group: str
    ops: tuple[str, ...]
    over: str | None
    parse_per_op: float
    print_per_op: float
    parse_ratio: float
    print_ratio: float


_T = TypeVar("_T")


def _timed(run: Callable[[], _T], samples: list[float]) -> _T:
    gc.collect()
    start = time.perf_counter()
    result = run()
    samples.append(time.perf_counter() - start)
    return result


def _print(module: ModuleOp) -> str:
    stream = StringIO()
    Printer(stream=stream).print_op(module)
    return stream.getvalue()


@dataclass
class _Samples:
    parse: list[float]
    print: list[float]

    def take(self, ctx: Context, text: str) -> None:
        module = _timed(lambda: Parser(ctx, text).parse_module(), self.parse)
        _timed(lambda: _print(module), self.print)


def _with_dependencies(kinds: Sequence[IOKind]) -> list[IOKind]:
    """`kinds`, after the baseline and the kinds they are measured over."""
    by_name = {kind.name: kind for kind in io_kinds()}
    needed = [BASELINE, *(k.over for k in kinds if k.over is not None)]
    chosen = [by_name[name] for name in dict.fromkeys(needed)]
    return [*chosen, *(k for k in kinds if k not in chosen)]


def measure_dialect_io(
    ops_per_kind: int = 2000,
    repeat: int = 5,
    kinds: Sequence[IOKind] | None = None,
) -> list[DialectIORow]:
    """Time `kinds` (default `io_kinds()`), with what they are measured against."""
    chosen = _with_dependencies(io_kinds() if kinds is None else kinds)
    items = {k.name: -(-ops_per_kind // k.units) for k in chosen}
    texts = {"": module_text("", 0)} | {
        k.name: module_text(k.op, items[k.name]) for k in chosen
    }
    samples = {name: _Samples([], []) for name in texts}
    ctx = pypto_context()
    for _ in range(repeat):
        for name, text in texts.items():
            samples[name].take(ctx, text)
    empty = samples[""]

    def per_unit(kind: IOKind) -> tuple[float, float]:
        """The median times of `kind`, less the empty function, per unit."""
        ops = items[kind.name] * kind.units
        taken = samples[kind.name]
        return (
            (statistics.median(taken.parse) - statistics.median(empty.parse)) / ops,
            (statistics.median(taken.print) - statistics.median(empty.print)) / ops,
        )

    times = {kind.name: per_unit(kind) for kind in chosen}
    addi_parse, addi_print = times[BASELINE]
    rows: list[DialectIORow] = []
    for kind in chosen:
        parse, print_ = times[kind.name]
        if kind.over is not None:
            parse -= times[kind.over][0]
            print_ -= times[kind.over][1]
        rows.append(
            DialectIORow(
                kind.name,
                kind.group,
                kind.ops,
                kind.over,
                parse,
                print_,
                _ratio(parse, addi_parse),
                _ratio(print_, addi_print),
            )
        )
    return rows


def _ratio(seconds: float, addi: float) -> float:
    """`seconds / addi`; NaN when addi took no measurable time (tiny smoke runs)."""
    return seconds / addi if addi > 0 else math.nan


def markdown_table(rows: Sequence[DialectIORow]) -> str:
    """The rows as a markdown table: microseconds per op, and ratios to addi."""
    lines = [
        "| kind | group | less | parse µs/op | print µs/op | parse / addi "
        "| print / addi |",
        "|---|---|---|---:|---:|---:|---:|",
    ]
    lines.extend(
        f"| `{row.kind}` | {row.group} | {'' if row.over is None else row.over} | "
        f"{row.parse_per_op * 1e6:.1f} | {row.print_per_op * 1e6:.1f} | "
        f"{row.parse_ratio:.2f} | {row.print_ratio:.2f} |"
        for row in rows
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> None:
    """Measure, and print the markdown table."""
    parser = command_line(
        "dialect-io", "Parse and print cost of the pypto ops, relative to arith.addi."
    )
    parser.add_argument("--ops", type=int, default=2000, help="ops per kind")
    parser.add_argument("--repeat", type=int, default=5, help="runs per kind")
    parser.add_argument("--only", nargs="+", help="the kinds to measure, by name")
    arguments = parser.parse_args(argv)
    only: list[str] | None = arguments.only
    kinds = [k for k in io_kinds() if only is None or k.name in only]
    rows = measure_dialect_io(arguments.ops, arguments.repeat, kinds)
    print(f"{arguments.ops} ops per kind, median of {arguments.repeat} runs\n")
    print(markdown_table(rows))
