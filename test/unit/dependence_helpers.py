"""Helpers for the tests of `passes/analysis/`."""

from collections.abc import Sequence

from xdsl.dialects import arith, func
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32
from xdsl.ir import Block, Operation, Region, SSAValue

from passes.analysis import DependenceGraph, MemoryAccess, OpSummaries
from passes.analysis.windows import LinearForm, LinearForms
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.tile import LoadOp, StoreOp
from pypto_dialect.types import MemorySpace, TensorType, TileType


def memory_accesses(op: Operation, forms: LinearForms) -> Sequence[MemoryAccess] | None:
    """`OpSummaries.accesses` of `op` alone, with fresh memo tables."""
    return OpSummaries(forms).accesses(op)


class CountingForms(LinearForms):
    """Linear forms that count the values asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.asked = 0

    def of(self, value: SSAValue) -> LinearForm:
        self.asked += 1
        return super().of(value)


INDEX = IndexType()

TENSOR = TensorType([64, 64], f32)


def index_constant(block: Block, value: int) -> SSAValue:
    op = arith.ConstantOp(IntegerAttr(value, INDEX))
    block.add_op(op)
    return op.result


def pipeline_body(
    tensor: TensorType, tile_shapes: Sequence[tuple[int, ...]]
) -> tuple[Block, Block]:
    """
    An entry block `(%x, %y: tensor, %j: index, tiles...)` of a `func.func`
    and the body `(%i, %v: tensor)` of the pipeline in it, `%v` loop-carried.
    """
    tiles = [TileType(shape, f32, MemorySpace.VEC) for shape in tile_shapes]
    entry = Block(arg_types=[tensor, tensor, INDEX, *tiles])
    body = Block(arg_types=[INDEX, tensor])
    body.add_op(YieldOp(body.args[1]))
    one = index_constant(entry, 1)
    entry.add_ops(
        [PipelineOp(one, one, one, [entry.args[0]], body, 1), func.ReturnOp()]
    )
    func.FuncOp("k", (entry.arg_types, ()), Region(entry))
    return entry, body


def append_before_terminator(body: Block, op: Operation) -> None:
    """Add `op` before the terminator of `body`."""
    terminator = body.last_op
    assert terminator is not None
    body.insert_op_before(op, terminator)


def append_access(
    body: Block,
    write: bool,
    tensor: SSAValue,
    tile: SSAValue,
    offsets: Sequence[SSAValue],
) -> Operation:
    tile_type = tile.type
    assert isinstance(tile_type, TileType)
    op = StoreOp(tile, tensor, offsets) if write else LoadOp(tensor, offsets, tile_type)
    append_before_terminator(body, op)
    return op


def append_offset(
    entry: Block, body: Block, atom: SSAValue | None, constant: int
) -> SSAValue:
    value = index_constant(entry, constant)
    if atom is None:
        return value
    add = arith.AddiOp(atom, value)
    append_before_terminator(body, add)
    return add.result


def reachable(graph: DependenceGraph) -> list[set[int]]:
    """Per op of `graph`, the ops its edges lead to, directly or not."""
    reach: list[set[int]] = []
    for start in range(len(graph.ops)):
        seen: set[int] = set()
        stack = [start]
        while stack:
            for successor in graph.successor_indices(stack.pop()):
                if successor not in seen:
                    seen.add(successor)
                    stack.append(successor)
        reach.append(seen)
    return reach
