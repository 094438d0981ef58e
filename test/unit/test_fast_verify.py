"""
The compiled definition tests of `pypto_dialect.fast_verify` accept exactly
the ops xDSL's generic `OpDef.verify` accepts: on every op of the examples
and the lit inputs (error cases included), and on ops of every class built
from random operand, result, property and region mixes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from random import Random
from typing import cast

import pytest
from corpus import parsed_inputs
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    BoolAttr,
    IndexType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.dialect import PyPTO
from pypto_dialect.fast_verify import compile_definition, compiled_definition
from pypto_dialect.types import MemorySpace, TensorType, TileType
from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import fast_paths_enabled

OPS: list[type[IRDLOperation]] = [
    op for op in PyPTO.operations if issubclass(op, IRDLOperation)
]


def _error(verify: Callable[[Operation], None], op: Operation) -> str | None:
    """The message `verify` raises on `op`, None when it accepts `op`."""
    try:
        verify(op)
    except VerifyException as error:
        return str(error)
    return None


def _generic_error(op: Operation) -> str | None:
    op_type = cast(type[IRDLOperation], type(op))
    return _error(op_type.get_irdl_definition().verify, op)


def _assert_agrees(op: Operation) -> None:
    """The same diagnostic as xDSL's, and the test taken whenever xDSL accepts."""
    # Locals only: pytest would print an op's repr, with its parents, the module.
    definition = cast(type[IRDLOperation], type(op)).get_irdl_definition()
    compiled = compile_definition(definition)
    assert compiled is not None, op.name
    expected, found = _generic_error(op), _error(compiled.verify, op)
    assert found == expected, op.name
    taken = compiled.accepts(op)
    assert taken or expected is not None, op.name


def test_every_op_of_the_dialect_is_compiled():
    definitions = [op.get_irdl_definition() for op in OPS]
    assert [d.name for d in definitions if compile_definition(d) is None] == []


def test_the_compiled_tests_are_installed_with_the_fast_paths_only():
    installed = [compiled_definition(op) is not None for op in OPS]
    assert installed == [fast_paths_enabled()] * len(OPS)


INPUTS = parsed_inputs()


@pytest.mark.parametrize(
    "module", [module for _, module in INPUTS], ids=[name for name, _ in INPUTS]
)
def test_agrees_with_xdsl_on_the_corpus(module: ModuleOp):
    for op in walk_ops(module):
        if type(op) in OPS:
            _assert_agrees(op)


def test_the_corpus_has_ops_xdsl_rejects():
    rejected = [
        op
        for _, module in INPUTS
        for op in walk_ops(module)
        if type(op) in OPS and _generic_error(op) is not None
    ]
    assert len(rejected) >= 5


TILES = [
    TileType([16, 64], f32, MemorySpace.VEC),
    TileType([16, 1], f32, MemorySpace.VEC),
    TileType([16, 256], f32, MemorySpace.ACC),
    TileType([16, 64], i32, MemorySpace.MAT),
]
TYPES: list[Attribute] = [
    IndexType(),
    i1,
    i32,
    f32,
    TensorType([160, 64], f32),
    *TILES,
]
PROPERTY_VALUES: list[Attribute] = [
    IntegerAttr(2, i64),
    IntegerAttr(2, IndexType()),
    IntegerAttr(0, i32),
    BoolAttr(True, i1),
    StringAttr("x"),
    TILES[0],
]
PROPERTY_NAMES = sorted(
    {name for op in OPS for name in op.get_irdl_definition().properties} | {"bogus"}
)


@dataclass(frozen=True)
class Drawn:
    """A drawn op, shown by name (its repr would hold its operands' module)."""

    op: Operation

    def __repr__(self) -> str:
        return f"Drawn({self.op.name})"


@st.composite
def _ops(draw: st.DrawFn) -> Drawn:
    """An op of a random class with random operands, results, properties, regions."""
    op_type = draw(st.sampled_from(OPS))
    types = st.lists(st.sampled_from(TYPES), max_size=5)
    operand_types = draw(types)
    operands = Block(arg_types=operand_types).args
    properties = draw(
        st.dictionaries(
            st.sampled_from(PROPERTY_NAMES), st.sampled_from(PROPERTY_VALUES)
        )
    )
    regions = [
        Region([Block(arg_types=draw(types)) for _ in range(draw(st.integers(0, 2)))])
        for _ in range(draw(st.integers(0, 2)))
    ]
    return Drawn(
        op_type.create(
            operands=operands,
            result_types=draw(types),
            properties=properties,
            regions=regions,
        )
    )


CORPUS_OPS = [
    op
    for _, module in INPUTS
    for op in walk_ops(module)
    if type(op) in OPS and _generic_error(op) is None
]


def _with_operand_changed(rng: Random, op: Operation) -> None:
    if op.operands:
        index = rng.randrange(len(op.operands))
        op.operands[index] = Block(arg_types=[rng.choice(TYPES)]).args[0]


def _with_property_changed(rng: Random, op: Operation) -> None:
    name = rng.choice(PROPERTY_NAMES)
    if rng.random() < 0.5:
        op.properties.pop(name, None)
    else:
        op.properties[name] = rng.choice(PROPERTY_VALUES)


def _with_block_added_or_removed(rng: Random, op: Operation) -> None:
    if not op.regions:
        return
    region = rng.choice(op.regions)
    if region.blocks and rng.random() < 0.5:
        region.detach_block(region.blocks[-1])
    else:
        region.add_block(Block(arg_types=rng.choices(TYPES, k=rng.randrange(3))))


def _with_entry_argument_changed(rng: Random, op: Operation) -> None:
    blocks = [block for region in op.regions for block in region.blocks]
    if blocks:
        block = rng.choice(blocks)
        block.insert_arg(rng.choice(TYPES), len(block.args))


Mutation = Callable[[Random, Operation], None]

MUTATIONS: list[Mutation] = [
    _with_operand_changed,
    _with_property_changed,
    _with_block_added_or_removed,
    _with_entry_argument_changed,
]


@pytest.mark.parametrize("mutate", MUTATIONS, ids=[m.__name__ for m in MUTATIONS])
def test_agrees_with_xdsl_on_valid_ops_with_one_change(mutate: Mutation):
    """Each valid op of the corpus, copied, changed five ways (seeded)."""
    rng = Random(0)
    for original in CORPUS_OPS:
        for _ in range(5):
            op = original.clone()
            mutate(rng, op)
            _assert_agrees(op)
            op.erase()  # its uses of the corpus's values go with it


@pytest.mark.slow
@settings(max_examples=400, deadline=None)
@given(_ops())
def test_agrees_with_xdsl_on_random_ops(drawn: Drawn):
    _assert_agrees(drawn.op)
