"""The cross-core tile ops: pushes to and pops from a channel to the other core type."""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import I64, IntegerAttr
from xdsl.ir import Operation, SSAValue
from xdsl.irdl import operand_def, opt_attr_def, result_def, traits_def
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.effects import (
    ChannelDirection,
    CrossCoreChannel,
    CrossCoreChannelOp,
    UsesCrossCoreChannel,
)
from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import ResultSyntax, TileOpSyntax, TileSyntaxOp
from pypto_dialect.types import TileType

SPLIT_CODES = range(5)
"""PyPTO's split codes: 0 none, 1 up-down, 2 left-right, 3 and 4 the same over an odd extent."""


class ChannelOp(TileSyntaxOp, CrossCoreChannelOp):
    """A push or a pop: its `split` attribute (absent means 0) and its channel."""

    DIRECTION: ClassVar[ChannelDirection]

    split_attr = opt_attr_def(IntegerAttr[I64], attr_name="split")

    @property
    def split(self) -> int:
        """How the vector cores divide the tile (PyPTO's split code)."""
        return 0 if self.split_attr is None else self.split_attr.value.data

    @property
    def channel(self) -> CrossCoreChannel:
        return CrossCoreChannel(self.DIRECTION)

    def verify_(self) -> None:
        if self.split not in SPLIT_CODES:
            raise VerifyException(
                f"split must be 0 (none), 1 (up-down), 2 (left-right), 3 or 4 "
                f"(the same over an odd extent), got {self.split}"
            )


class TPushOp(ChannelOp):
    """`pypto.tile.tpush_to_<core> %t : tile`: send a tile to the other core type."""

    tile = operand_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, result=ResultSyntax.NONE)

    def __init__(self, tile: SSAValue | Operation, split: int = 0):
        super().__init__(operands=[tile], attributes=_split_attributes(split))


class TPopOp(ChannelOp):
    """`%t = pypto.tile.tpop_from_<core> : tile`: receive a tile from the other core type."""

    result = result_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(0)

    def __init__(self, result_type: TileType, split: int = 0):
        super().__init__(
            result_types=[result_type], attributes=_split_attributes(split)
        )


def _split_attributes(split: int) -> dict[str, IntegerAttr]:
    """The attributes of a channel op of `split` (none for 0, the default)."""
    return {"split": IntegerAttr(split, 64)} if split else {}


@pypto_op_definition
class TPushToAivOp(TPushOp):
    name = "pypto.tile.tpush_to_aiv"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIC_TO_AIV


@pypto_op_definition
class TPushToAicOp(TPushOp):
    name = "pypto.tile.tpush_to_aic"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIV_TO_AIC


@pypto_op_definition
class TPopFromAicOp(TPopOp):
    name = "pypto.tile.tpop_from_aic"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIC_TO_AIV


@pypto_op_definition
class TPopFromAivOp(TPopOp):
    name = "pypto.tile.tpop_from_aiv"
    DIRECTION: ClassVar[ChannelDirection] = ChannelDirection.AIV_TO_AIC
