"""The cross-core tile ops: pushes to and pops from a channel to the other core type."""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import operand_def, result_def, traits_def

from pypto_dialect.effects import (
    ChannelDirection,
    CrossCoreChannel,
    CrossCoreChannelOp,
    UsesCrossCoreChannel,
)
from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import ResultSyntax, TileOpSyntax, TileSyntaxOp
from pypto_dialect.types import TileType


class TPushOp(TileSyntaxOp, CrossCoreChannelOp):
    """`pypto.tile.tpush_to_<core> %t : tile`: send a tile to the other core type."""

    DIRECTION: ClassVar[ChannelDirection]

    tile = operand_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(1, result=ResultSyntax.NONE)

    def __init__(self, tile: SSAValue | Operation):
        super().__init__(operands=[tile])

    @property
    def channel(self) -> CrossCoreChannel:
        return CrossCoreChannel(self.DIRECTION)


class TPopOp(TileSyntaxOp, CrossCoreChannelOp):
    """`%t = pypto.tile.tpop_from_<core> : tile`: receive a tile from the other core type."""

    DIRECTION: ClassVar[ChannelDirection]

    result = result_def(TileType)

    traits = traits_def(UsesCrossCoreChannel())

    SYNTAX: ClassVar[TileOpSyntax] = TileOpSyntax(0)

    def __init__(self, result_type: TileType):
        super().__init__(result_types=[result_type])

    @property
    def channel(self) -> CrossCoreChannel:
        return CrossCoreChannel(self.DIRECTION)


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
