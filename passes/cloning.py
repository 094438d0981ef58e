"""
Copies of ops for the lowering: what xDSL's `Operation.clone` makes, built
directly; and `transplant`, an op replaced by one of another class that
takes over its operands, results and regions. `Operation.clone` goes
through `Operation.__init__` (operands set empty, then set again on a
second walk; every name hint re-validated by a regex; default properties
looked up again), which was three quarters of
`lower-pipeline-loops` (docs/performance.md, "Fourth round"). The copy here
sets each field once. It reads and writes `Operation`'s own fields, so it is
tied to the pinned xDSL (0.75); `test_cloning.py` compares it with
`Operation.clone` on every op of the test corpus, use lists included.
"""

# The fields of xDSL's IR classes are set directly, as xDSL's own IR code does.
# pyright: reportPrivateUsage=false

from __future__ import annotations

from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.core import OpT, SSAValues, Use


def clone_op(op: Operation, mapper: dict[SSAValue, SSAValue]) -> Operation:
    """
    A detached copy of `op`, regions included, like `op.clone(mapper)`:
    operands go through `mapper` (a value it lacks is used as is), and the
    results and block arguments of the copy are recorded in it. Attributes,
    properties, locations and name hints are the original's.
    """
    if not op.regions:
        copy = _copy_fields(op, tuple([mapper.get(v, v) for v in op._operands]), mapper)
        if op._successors:
            copy.successors = op._successors
        return copy
    # As in `Operation.clone`: the whole tree first, then the operands, as a
    # value of a region may be used before its definition (graph regions,
    # blocks out of dominance order).
    blocks: dict[Block, Block] = {}
    pairs: list[tuple[Operation, Operation]] = []
    copy = _copy_tree(op, mapper, blocks, pairs)
    for original, new in pairs:
        _set_operands(new, tuple([mapper.get(v, v) for v in original._operands]))
        if original._successors:
            new.successors = [blocks.get(b, b) for b in original._successors]
    return copy


def _copy_fields(
    op: Operation, operands: tuple[SSAValue, ...], mapper: dict[SSAValue, SSAValue]
) -> Operation:
    """
    `op` without its regions and successors, with the given operands; its
    results go to `mapper`.
    """
    cls = type(op)
    new = cls.__new__(cls)
    _set_operands(new, operands)
    results: list[OpResult] = []
    for index, result in enumerate(op.results):
        copy = OpResult(result.type, new, index)
        copy._name = result._name  # valid: it is the original's
        mapper[result] = copy
        results.append(copy)
    new.results = SSAValues(results)
    new.properties = op.properties.copy()
    new.attributes = op.attributes.copy()
    new.location = op.location
    new._successors = ()
    new._successor_uses = ()
    new.regions = ()
    new.parent = None
    new._next_op = None
    new._prev_op = None
    return new


def _set_operands(op: Operation, operands: tuple[SSAValue, ...]) -> None:
    """Give `op`, which has no operands yet, these operands and their uses."""
    uses: list[Use] = []
    for index, value in enumerate(operands):
        use = Use(op, index)
        value.add_use(use)
        uses.append(use)
    op._operands = SSAValues(operands)
    op._operand_uses = tuple(uses)


def _copy_tree(
    op: Operation,
    mapper: dict[SSAValue, SSAValue],
    blocks: dict[Block, Block],
    pairs: list[tuple[Operation, Operation]],
) -> Operation:
    """`op` and its regions without operands; each (original, copy) goes to `pairs`."""
    new = _copy_fields(op, (), mapper)
    pairs.append((op, new))
    for region in op.regions:
        new_region = Region()
        new.add_region(new_region)
        for block in region.blocks:
            new_block = Block()
            blocks[block] = new_block
            new_region.add_block(new_block)
            for index, arg in enumerate(block.args):
                new_arg = new_block.insert_arg(arg.type, index, arg.location)
                new_arg._name = arg._name
                mapper[arg] = new_arg
        for block in region.blocks:
            blocks[block].add_ops(
                [_copy_tree(child, mapper, blocks, pairs) for child in block.ops]
            )
    return new


def transplant(op: Operation, cls: type[OpT], properties: dict[str, Attribute]) -> OpT:
    """
    An op of class `cls` in the place of `op` (which has no successors) that
    takes over its operands, results, regions, discardable attributes and
    location, with `properties`; `op` is left detached and empty. What
    replacing `op` by `cls.create(...)` on the same values and moved regions
    makes, with the same result objects (no use is rewritten, none made):
    a fifth of `canonicalize-io-order` on a module of small loops went to
    creating the `scf.for` and `scf.yield` of the demotion, and replacing.
    """
    if op._successors:
        raise ValueError(f"transplant: {op.name} has successors")
    new = cls.__new__(cls)
    new._operands, new._operand_uses = op._operands, op._operand_uses
    for use in new._operand_uses:
        use._operation = new
    new.results = op.results
    for result in new.results:
        result.op = new
    new.properties = properties
    new.attributes = op.attributes
    new.location = op.location
    new._successors, new._successor_uses = (), ()
    new.regions = op.regions
    for region in new.regions:
        region.parent = new
    new.parent, new._prev_op, new._next_op = op.parent, op._prev_op, op._next_op
    if new._prev_op is not None:
        new._prev_op._next_op = new
    elif new.parent is not None:
        new.parent._first_op = new
    if new._next_op is not None:
        new._next_op._prev_op = new
    elif new.parent is not None:
        new.parent._last_op = new
    op._operands, op._operand_uses = SSAValues(), ()
    op.results, op.regions, op.attributes = SSAValues(), (), {}
    op.parent = op._prev_op = op._next_op = None
    return new
