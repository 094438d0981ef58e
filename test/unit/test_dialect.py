"""The Python API of the `pypto` dialect: types, attributes, op builders, effects."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import pytest
from xdsl.dialects.arith import ConstantOp
from xdsl.dialects.builtin import (
    BoolAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    bf16,
    f16,
    f32,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.traits import (
    EffectInstance,
    MemoryEffectKind,
    get_effects,
    is_side_effect_free,
)
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.test_value import create_ssa_value

from pypto_dialect import tile
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.constants import constant_int
from pypto_dialect.dialect import PyPTO
from pypto_dialect.effects import (
    ChannelDirection,
    CrossCoreChannel,
    TensorWindowAccess,
)
from pypto_dialect.pipeline import PipelineOp, PipelinePolicy, YieldOp
from pypto_dialect.types import (
    AllocType,
    MemorySpace,
    MemorySpaceAttr,
    TensorType,
    TileType,
)

VEC = MemorySpace.VEC
index = IndexType()


def value(name: str, type: Attribute) -> SSAValue:
    """A free SSA value named `%name`."""
    result = create_ssa_value(type)
    result.name_hint = name
    return result


def named(op: Operation, *names: str) -> Operation:
    """`op`, with its results named `%names`."""
    for result, name in zip(op.results, names, strict=True):
        result.name_hint = name
    return op


# --------------------------------------------------------------------------- #
# Types and attributes
# --------------------------------------------------------------------------- #


def test_tensor_type():
    tensor = TensorType([128, 64], bf16)
    assert tensor.get_shape() == (128, 64)
    assert tensor.get_num_dims() == 2
    assert tensor.get_element_type() == bf16
    assert str(tensor) == "!pypto.tensor<128x64xbf16>"


@pytest.mark.parametrize("space", list(MemorySpace))
def test_tile_type_in_each_space(space: MemorySpace):
    tile_type = TileType([16, 8], i8, space)
    assert tile_type.memory_space == space
    assert tile_type.space == MemorySpaceAttr(space)
    assert tile_type.get_shape() == (16, 8)
    assert tile_type.element_type == i8
    assert str(tile_type) == f"!pypto.tile<16x8xi8, {space.value}>"
    assert TileType([16, 8], i8, MemorySpaceAttr(space)) == tile_type


def test_types_compare_and_hash_by_all_parameters():
    tile_type = TileType([64, 64], f32, VEC)
    assert tile_type == TileType([64, 64], f32, VEC)
    assert hash(tile_type) == hash(TileType([64, 64], f32, VEC))
    others = [
        TileType([64, 32], f32, VEC),
        TileType([64, 64], f16, VEC),
        TileType([64, 64], f32, MemorySpace.MAT),
    ]
    assert all(tile_type != other for other in others)
    assert len({tile_type, *others}) == 4
    assert TensorType([8], f32) != TensorType([16], f32)
    assert TensorType([8], f32) != TensorType([8], i32)
    assert TensorType([8], f32) != TileType([8], f32, VEC)


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: TensorType([], f32), "tensor must have at least one dimension"),
        (lambda: TileType([], f32, VEC), "tile must have at least one dimension"),
        (
            lambda: TensorType([4, 0], f32),
            "tensor dimensions must be positive, got 4x0",
        ),
        (
            lambda: TileType([-(2**63), 4], f32, VEC),
            "tile dimensions must be static, got ?x4",
        ),
        (lambda: TensorType([4], index), "got index"),
        (lambda: TileType([4], IntegerType(4), VEC), "got i4"),
    ],
)
def test_invalid_types_raise(build: Callable[[], Attribute], message: str):
    with pytest.raises(VerifyException, match=re.escape(message)):
        build()


def test_membership_attr():
    membership = MembershipAttr([(0, 1)])
    assert membership.pairs == ((0, 1),)
    assert membership.appended(2, 3) == MembershipAttr([(0, 1), (2, 3)])
    assert membership.pairs == ((0, 1),), "appended returns a copy"
    assert str(membership.appended(12, 0)) == "#pypto.membership<0:1, 12:0>"
    assert MEMBERSHIP_ATTR_NAME == "pypto.pipeline_membership"


@pytest.mark.parametrize(
    ("pairs", "message"),
    [([], "at least one"), ([(0, -1)], "non-negative"), ([(-2, 0)], "non-negative")],
)
def test_invalid_membership_raises(pairs: list[tuple[int, int]], message: str):
    with pytest.raises(VerifyException, match=message):
        MembershipAttr(pairs)


def test_dialect_contents():
    assert PyPTO.name == "pypto"
    assert set(PyPTO.operations) == {
        *tile.TILE_OPS,
        PipelineOp,
        YieldOp,
        AllocOp,
        BindOp,
    }
    assert set(PyPTO.attributes) == {
        TensorType,
        TileType,
        AllocType,
        MemorySpaceAttr,
        MembershipAttr,
    }


# --------------------------------------------------------------------------- #
# Tile op builders: every op is built with its typed __init__, verifies and
# prints in the custom syntax of ir.md.
# --------------------------------------------------------------------------- #

TENSOR = TensorType([128, 64], f32)
T64 = TileType([64, 64], f32, VEC)
ROW = TileType([64, 1], f32, VEC)
LEFT = TileType([16, 64], bf16, MemorySpace.LEFT)
RIGHT = TileType([64, 256], bf16, MemorySpace.RIGHT)
ACC = TileType([16, 256], f32, MemorySpace.ACC)
MAT = TileType([128, 256], bf16, MemorySpace.MAT)

X = value("x", TENSOR)
T = value("t", T64)
U = value("u", T64)
R = value("r", ROW)
A = value("a", LEFT)
B = value("b", RIGHT)
C = value("c", ACC)
M = value("m", MAT)
S = value("s", f32)
I = value("i", index)  # noqa: E741
J = value("j", index)

T64_TEXT = "!pypto.tile<64x64xf32, vec>"
ROW_TEXT = "!pypto.tile<64x1xf32, vec>"

BINARY = (tile.AddOp, tile.SubOp, tile.MulOp, tile.DivOp, tile.MaxOp, tile.MinOp)
TILE_SCALAR = (
    tile.AddsOp,
    tile.SubsOp,
    tile.MulsOp,
    tile.DivsOp,
    tile.MaxsOp,
    tile.MinsOp,
)
UNARY = (
    tile.ExpOp,
    tile.NegOp,
    tile.AbsOp,
    tile.SqrtOp,
    tile.RsqrtOp,
    tile.RecipOp,
    tile.ReluOp,
)
ROW_REDUCTIONS = (tile.RowSumOp, tile.RowMaxOp)
ROW_EXPANDS = (
    tile.RowExpandAddOp,
    tile.RowExpandSubOp,
    tile.RowExpandMulOp,
    tile.RowExpandDivOp,
)

Builder = tuple[Callable[[], Operation], str]
"""Builds an op; its expected custom syntax."""


def family(
    ops: Sequence[type[IRDLOperation]],
    operands: Sequence[SSAValue | Attribute],
    syntax: str,
) -> list[Builder]:
    """A builder per op of a family sharing operands and syntax after the op name."""
    return [
        (lambda op=op: named(op(*operands), "y"), f"%y = {op.name} {syntax}")
        for op in ops
    ]


BUILDERS: list[Builder] = [
    (
        lambda: named(tile.LoadOp(X, [I, J], T64), "y"),
        f"%y = pypto.tile.load %x[%i, %j] : !pypto.tensor<128x64xf32> -> {T64_TEXT}",
    ),
    (
        lambda: tile.StoreOp(T, X, [I, J]),
        f"pypto.tile.store %t, %x[%i, %j] : {T64_TEXT}, !pypto.tensor<128x64xf32>",
    ),
    (
        lambda: named(tile.ReadOp(T, [I, J]), "e"),
        f"%e = pypto.tile.read %t[%i, %j] : {T64_TEXT}",
    ),
    (
        lambda: named(tile.WriteOp(S, T, [I, J]), "y"),
        f"%y = pypto.tile.write %s, %t[%i, %j] : {T64_TEXT}",
    ),
    (
        lambda: named(
            tile.ExtractOp(M, [I, J], TileType([64, 256], bf16, MemorySpace.RIGHT)),
            "y",
        ),
        "%y = pypto.tile.extract %m[%i, %j] : !pypto.tile<128x256xbf16, mat> -> "
        "!pypto.tile<64x256xbf16, right>",
    ),
    (
        lambda: named(tile.MoveOp(T, TileType([64, 64], f32, MemorySpace.MAT)), "y"),
        f"%y = pypto.tile.move %t : {T64_TEXT} -> !pypto.tile<64x64xf32, mat>",
    ),
    (
        lambda: named(tile.MatmulOp(A, B, ACC), "y"),
        "%y = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, "
        "!pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>",
    ),
    (
        lambda: named(tile.MatmulAccOp(C, A, B), "y"),
        "%y = pypto.tile.matmul_acc %c, %a, %b : !pypto.tile<16x256xf32, acc>, "
        "!pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>",
    ),
    *family(BINARY, (T, U), f"%t, %u : {T64_TEXT}"),
    *family(TILE_SCALAR, (T, S), f"%t, %s : {T64_TEXT}, f32"),
    *family(UNARY, (T,), f"%t : {T64_TEXT}"),
    (
        lambda: named(tile.CastOp(T, TileType([64, 64], bf16, VEC)), "y"),
        f"%y = pypto.tile.cast %t : {T64_TEXT} -> !pypto.tile<64x64xbf16, vec>",
    ),
    *family(ROW_REDUCTIONS, (T, ROW), f"%t : {T64_TEXT} -> {ROW_TEXT}"),
    *family(ROW_EXPANDS, (T, R), f"%t, %r : {T64_TEXT}, {ROW_TEXT}"),
    (
        lambda: named(tile.FullOp(S, T64), "y"),
        f"%y = pypto.tile.full %s : f32 -> {T64_TEXT}",
    ),
    (lambda: tile.TPushToAivOp(T), f"pypto.tile.tpush_to_aiv %t : {T64_TEXT}"),
    (lambda: tile.TPushToAicOp(T), f"pypto.tile.tpush_to_aic %t : {T64_TEXT}"),
    (
        lambda: named(tile.TPopFromAicOp(T64), "y"),
        f"%y = pypto.tile.tpop_from_aic : {T64_TEXT}",
    ),
    (
        lambda: named(tile.TPopFromAivOp(T64), "y"),
        f"%y = pypto.tile.tpop_from_aiv : {T64_TEXT}",
    ),
]


@pytest.mark.parametrize(
    ("build", "text"), BUILDERS, ids=[text.split(" : ")[0] for _, text in BUILDERS]
)
def test_builder_verifies_and_prints(build: Callable[[], Operation], text: str):
    op = build()
    op.verify()
    assert str(op) == text


def test_every_tile_op_has_a_builder_test():
    built = {type(build()) for build, _ in BUILDERS}
    assert built == set(tile.TILE_OPS)


def test_builders_infer_result_types():
    assert tile.ReadOp(T, [I, J]).result.type == f32
    assert tile.WriteOp(S, T, [I, J]).result.type == T64
    assert tile.MatmulAccOp(C, A, B).result.type == ACC
    assert tile.AddOp(T, U).result.type == T64
    assert tile.MulsOp(T, S).result.type == T64
    assert tile.ExpOp(T).result.type == T64
    assert tile.RowExpandSubOp(T, R).result.type == T64


def test_read_builder_rejects_a_non_tile():
    with pytest.raises(TypeError, match=re.escape("needs a !pypto.tile")):
        tile.ReadOp(X, [I, J])


def test_builders_accept_operations_as_values():
    offset = ConstantOp(IntegerAttr(0, index))
    load = tile.LoadOp(X, [offset, offset], T64)
    assert list(load.offsets) == [offset.result, offset.result]
    load.verify()


def test_builder_output_is_checked_by_the_verifier():
    load = tile.LoadOp(X, [I], T64)
    with pytest.raises(VerifyException, match="expected 2 tensor offsets"):
        load.verify()


def test_constant_offsets_are_bounds_checked():
    c96 = ConstantOp(IntegerAttr(96, index))
    c0 = ConstantOp(IntegerAttr(0, index))
    assert constant_int(c96.result) == 96
    assert constant_int(I) is None
    with pytest.raises(VerifyException, match=r"window \[96, 160\) is out of bounds"):
        tile.LoadOp(X, [c96, c0], T64).verify()


# --------------------------------------------------------------------------- #
# Effects
# --------------------------------------------------------------------------- #


def test_load_reads_and_store_writes_their_tensor():
    load = tile.LoadOp(X, [I, J], T64)
    store = tile.StoreOp(T, X, [I, J])
    assert get_effects(load) == {EffectInstance(MemoryEffectKind.READ, X)}
    assert get_effects(store) == {EffectInstance(MemoryEffectKind.WRITE, X)}


def test_window_accessors():
    load = tile.LoadOp(X, [I, J], T64)
    store = tile.StoreOp(T, X, [J, I])
    for op, offsets in ((load, [I, J]), (store, [J, I])):
        assert isinstance(op, TensorWindowAccess)
        assert op.accessed_tensor is X
        assert list(op.window_offsets) == offsets
        assert op.window_shape == (64, 64)


def test_cross_core_ops_use_their_channel():
    to_aiv = CrossCoreChannel(ChannelDirection.AIC_TO_AIV)
    to_aic = CrossCoreChannel(ChannelDirection.AIV_TO_AIC)
    for op, channel in (
        (tile.TPushToAivOp(T), to_aiv),
        (tile.TPopFromAicOp(T64), to_aiv),
        (tile.TPushToAicOp(T), to_aic),
        (tile.TPopFromAivOp(T64), to_aic),
    ):
        assert op.channel == channel
        assert get_effects(op) == {
            EffectInstance(MemoryEffectKind.READ, resource=channel),
            EffectInstance(MemoryEffectKind.WRITE, resource=channel),
        }
    assert to_aiv != to_aic


def test_everything_else_is_pure():
    effectful = {
        tile.LoadOp,
        tile.StoreOp,
        tile.TPushToAivOp,
        tile.TPushToAicOp,
        tile.TPopFromAicOp,
        tile.TPopFromAivOp,
    }
    for build, _ in BUILDERS:
        op = build()
        assert is_side_effect_free(op) == (type(op) not in effectful), op.name


# --------------------------------------------------------------------------- #
# Pipeline loop
# --------------------------------------------------------------------------- #


def pipeline_body(*carried: Attribute) -> Block:
    """A body block taking the induction variable and `carried` values, yielding them."""
    block = Block(arg_types=[index, *carried])
    block.add_op(YieldOp(*block.args[1:]))
    return block


def test_pipeline_without_iter_args():
    loop = PipelineOp(I, J, I, [], pipeline_body(), 4)
    loop.verify()
    assert loop.num_stages == 4
    assert loop.stages == IntegerAttr(4, i64)
    assert loop.policy == PipelinePolicy(overlap_stores=True, double_buffer_acc=False)
    assert "overlap_stores" not in loop.properties, "defaults are not stored"
    assert "double_buffer_acc" not in loop.properties
    assert loop.induction_var is loop.body.block.args[0]
    assert loop.region_iter_args == ()
    assert not loop.res
    loop.induction_var.name_hint = "k"
    assert str(loop) == "pypto.pipeline %k = %i to %j step %i stages 4 {\n}"


def test_pipeline_with_iter_args_and_policy():
    loop = PipelineOp(
        I,
        J,
        I,
        [I, T],
        pipeline_body(index, T64),
        IntegerAttr(2, i64),
        policy=PipelinePolicy(overlap_stores=False, double_buffer_acc=True),
    )
    loop.verify()
    assert [result.type for result in loop.res] == [index, T64]
    assert list(loop.iter_args) == [I, T]
    assert [arg.type for arg in loop.region_iter_args] == [index, T64]
    assert loop.policy == PipelinePolicy(overlap_stores=False, double_buffer_acc=True)
    assert loop.properties["overlap_stores"] == BoolAttr.from_bool(False)
    assert loop.properties["double_buffer_acc"] == BoolAttr.from_bool(True)
    named(loop, "n", "y")
    loop.induction_var.name_hint = "k"
    loop.region_iter_args[0].name_hint = "p"
    loop.region_iter_args[1].name_hint = "q"
    assert str(loop) == (
        "%n, %y = pypto.pipeline %k = %i to %j step %i stages 2 "
        "overlap_stores = false double_buffer_acc = true "
        f"iter_args(%p = %i, %q = %t) -> (index, {T64_TEXT}) {{\n"
        f"  pypto.yield %p, %q : index, {T64_TEXT}\n}}"
    )


def test_pipeline_verifier():
    with pytest.raises(VerifyException, match="stages must be at least 1, got 0"):
        PipelineOp(I, J, I, [], pipeline_body(), 0).verify()
    with pytest.raises(VerifyException, match="expected 1 loop-carried block"):
        PipelineOp(I, J, I, [I], pipeline_body(), 2).verify()
    mismatched = Block(arg_types=[index, index])
    mismatched.add_op(YieldOp(S))
    with pytest.raises(
        VerifyException, match=re.escape("pypto.yield operand #0 has type f32")
    ):
        PipelineOp(I, J, I, [I], mismatched, 2).verify()
