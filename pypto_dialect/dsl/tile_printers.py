"""The target's tile ops: each `pl.tile` call by argument pattern (`CallKind`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Operation, SSAValue

from pypto_dialect import tile
from pypto_dialect.dsl.annotations import fill_space_problem, shape_text, space_text
from pypto_dialect.dsl.errors import fail
from pypto_dialect.dsl.function_printer import FunctionPrinter
from pypto_dialect.dsl.tables import (
    ALLOCATION_CALL,
    EXPORT_CALLS,
    MODULE_ALIAS,
    CallKind,
)
from pypto_dialect.types import MemorySpace, TileType


def print_tile_op(p: FunctionPrinter, op: Operation) -> None:
    """`x: T = pl.tile.<name>(...)` (a store: the new version of its tensor)."""
    call, scalar_twin = EXPORT_CALLS[type(op)]
    kind = CallKind.SCALAR if scalar_twin else call.kind
    arguments = ", ".join(_TILE_ARGUMENTS[kind](p, op)) + p.keywords(op)
    expression = f"{MODULE_ALIAS}.tile.{call.name}({arguments})"
    if isinstance(op, tile.StoreOp):
        version = p.names.new(p.value_names[op.dst], "t")
        p.emit(f"{version}: {p.type_of(op.dst.type, op)} = {expression}")
        p.versions[op.dst] = version
    elif op.results:
        p.assign(op, expression)
    else:
        p.emit(expression)


def _tile(value: SSAValue) -> TileType:
    assert isinstance(value.type, TileType)
    return value.type


def _list(p: FunctionPrinter, values: Sequence[SSAValue], op: Operation) -> str:
    return f"[{p.refs(values, op, IndexType())}]"


def _target_memory(value: SSAValue) -> str:
    return f"target_memory={space_text(_tile(value).memory_space)}"


def _load(p: FunctionPrinter, op: tile.LoadOp) -> list[str]:
    shape = shape_text(_tile(op.result).get_shape())
    return [
        p.ref(op.src, op),
        _list(p, op.offsets, op),
        shape,
        shape,
        _target_memory(op.result),
    ]


def _store(p: FunctionPrinter, op: tile.StoreOp) -> list[str]:
    return [p.ref(op.value, op), _list(p, op.offsets, op), p.ref(op.dst, op)]


def _read(p: FunctionPrinter, op: tile.ReadOp) -> list[str]:
    return [p.ref(op.tile, op), _list(p, op.indices, op)]


def _write(p: FunctionPrinter, op: tile.WriteOp) -> list[str]:
    element = _tile(op.tile).element_type
    return [p.ref(op.tile, op), _list(p, op.indices, op), p.ref(op.value, op, element)]


def _extract(p: FunctionPrinter, op: tile.ExtractOp) -> list[str]:
    if len(op.offsets) != 2:
        fail(
            op, "has no PyPTO form unless it is 2-D (pl.tile.extract(t, row, col, ...))"
        )
    row, col = (p.ref(offset, op, IndexType()) for offset in op.offsets)
    shape = shape_text(_tile(op.result).get_shape())
    return [p.ref(op.source, op), row, col, shape, _target_memory(op.result)]


def _move(p: FunctionPrinter, op: tile.MoveOp) -> list[str]:
    return [p.ref(op.source, op), _target_memory(op.result)]


def _operands(p: FunctionPrinter, op: Operation) -> list[str]:
    """Tiles only: matmuls, tile-tile math, unary math, row ops."""
    return [p.ref(operand, op) for operand in op.operands]


def _scalar(p: FunctionPrinter, op: Operation) -> list[str]:
    source, scalar = op.operands
    return [p.ref(source, op), p.ref(scalar, op, _tile(source).element_type)]


def _cast(p: FunctionPrinter, op: tile.CastOp) -> list[str]:
    element = _tile(op.result).element_type
    return [p.ref(op.source, op), f"target_type={p.dtype(element, op)}"]


def _full(p: FunctionPrinter, op: tile.FullOp) -> list[str]:
    result = _tile(op.result)
    if result.memory_space != MemorySpace.VEC:
        fail(op, fill_space_problem(result.memory_space))
    return [
        shape_text(result.get_shape()),
        f"dtype={p.dtype(result.element_type, op)}",
        f"value={p.ref(op.scalar, op, result.element_type)}",
    ]


def _row_reduce(p: FunctionPrinter, op: tile.RowReductionOp) -> list[str]:
    """
    PyPTO's row reductions need a scratch tile: without one, a fresh
    `pl.tile.create` of the source's type, the smallest one PyPTO accepts,
    right before the op (so that it lives only while the op runs).
    """
    if op.scratch is not None:
        return _operands(p, op)
    source = _tile(op.source)
    scratch = p.names.new("tmp", "tmp")
    create = _ALLOCATE.format(
        shape=shape_text(source.get_shape()),
        dtype=p.dtype(source.element_type, op),
        space=space_text(source.memory_space),
    )
    p.emit(f"{scratch}: {p.type_of(source, op)} = {create}{p.keywords(op)})")
    return [p.ref(op.source, op), scratch]


_ALLOCATE = (
    f"{MODULE_ALIAS}.tile.{ALLOCATION_CALL}({{shape}}, dtype={{dtype}}, "
    "target_memory={space}"
)
"""`pl.tile.create(...)` without its closing parenthesis (keywords may follow)."""


def _channel(p: FunctionPrinter, op: tile.ChannelOp) -> list[str]:
    return [*_operands(p, op), f"split={op.split}"]


_TILE_ARGUMENTS: dict[CallKind, Callable[[FunctionPrinter, Any], list[str]]] = {
    CallKind.LOAD: _load,
    CallKind.STORE: _store,
    CallKind.READ: _read,
    CallKind.WRITE: _write,
    CallKind.EXTRACT: _extract,
    CallKind.MOVE: _move,
    CallKind.MATMUL: _operands,
    CallKind.MATMUL_ACC: _operands,
    CallKind.BINARY: _operands,
    CallKind.SCALAR: _scalar,
    CallKind.UNARY: _operands,
    CallKind.CAST: _cast,
    CallKind.ROW_REDUCE: _row_reduce,
    CallKind.ROW_EXPAND: _operands,
    CallKind.FULL: _full,
    CallKind.PUSH: _channel,
    CallKind.POP: _channel,
}
