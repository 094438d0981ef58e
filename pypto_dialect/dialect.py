"""The `pypto` dialect object."""

from xdsl.ir import Dialect

from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.attributes import MembershipAttr
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.tile import TILE_OPS
from pypto_dialect.types import AllocType, MemorySpaceAttr, TensorType, TileType

PyPTO = Dialect(
    "pypto",
    [*TILE_OPS, PipelineOp, YieldOp, AllocOp, BindOp],
    [TensorType, TileType, AllocType, MemorySpaceAttr, MembershipAttr],
)
