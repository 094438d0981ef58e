"""
The shape of a loop: all that the analyses of its body read (its ops, their
types, properties, attributes and nested blocks, how their values flow,
and what the values from outside it are), with every value renamed by the
order in which the loop uses it. Two loops of one shape have the same
dependence graph, op costs, schedule model and priority keys, position for
position: whatever was decided for the body of one holds for the other.

What counts of a value from outside the loop is what the analyses look at
through it: a constant's value (window offsets, trip counts), the sum,
difference or product a window offset is folded through (`windows.py`),
and otherwise only which value it is, its type and whether it is a tensor
argument of a function (the aliasing rule, `frontier.py`). A loop with an
op that has successors has no shape (None): the analyses do not look
through branches between blocks.

`Shapes` memoizes the shape of each op with regions, so that a nest whose
blocks are shaped inside out is walked once: use one instance per walk of a
module, after the nested blocks are final.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence

from xdsl.dialects import arith
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue

from passes.analysis.frontier import is_noalias_argument
from pypto_dialect.constants import constant_int
from pypto_dialect.xdsl_internals import operands

_FOLDED = (arith.AddiOp, arith.SubiOp, arith.MuliOp)
"""The ops a window offset is folded through (`windows.py`)."""

Shape = Hashable
"""A nested tuple of strings and integers."""
_Namer = Callable[[SSAValue], int]
"""The number of a value in the shape being built."""


class _NoShape(Exception):
    """An op the shape cannot describe (successors)."""


class Shapes:
    """The shapes of loops, ops with regions memoized (one instance per module walk)."""

    def __init__(self) -> None:
        self._nested: dict[Operation, tuple[Shape, tuple[SSAValue, ...]]] = {}
        """Of an op with regions: its shape, and the values from outside it it uses."""
        self._attributes: dict[int, int] = {}
        """Each attribute object seen (by `id`) to its number."""
        self._numbers: dict[Attribute, int] = {}
        """Each distinct attribute to its number."""
        self._alive: list[Attribute] = []
        """The attributes numbered, kept alive for `_attributes`."""

    def of_loop(self, loop: Operation, context: Shape = ()) -> Shape | None:
        """
        The shape of `loop` (its header and body) with the values from
        outside it described, and `context` (e.g. the policy that orders it).
        Not memoized: its body may change after (the ops nested in it are
        memoized, and must not).
        """
        try:
            shape, outside = self._shape_of(loop)
        except _NoShape:
            return None
        return context, shape, self._describe(outside)

    def _attribute(self, attribute: Attribute) -> int:
        number = self._attributes.get(id(attribute))
        if number is None:
            number = self._numbers.setdefault(attribute, len(self._numbers))
            self._attributes[id(attribute)] = number
            self._alive.append(attribute)
        return number

    def _of_nested(self, op: Operation) -> tuple[Shape, tuple[SSAValue, ...]]:
        """`_shape_of` a nested op with regions, memoized."""
        known = self._nested.get(op)
        if known is None:
            known = self._nested[op] = self._shape_of(op)
        return known

    def _shape_of(self, op: Operation) -> tuple[Shape, tuple[SSAValue, ...]]:
        """The shape of an op with regions and the outside values it uses, in order."""
        # By `id`: xDSL hashes values in Python (the IR keeps them alive).
        names: dict[int, int] = {}
        outside: list[SSAValue] = []

        def name(value: SSAValue) -> int:
            number = names.get(id(value))
            if number is None:
                number = names[id(value)] = -1 - len(outside)  # outside: negative
                outside.append(value)
            return number

        return self._op_shape(op, names, name), tuple(outside)

    def _op_shape(self, op: Operation, names: dict[int, int], name: _Namer) -> Shape:
        """An op's shape, its values numbered in `names` (by `id`; defined inside from 0)."""
        if op.successors:
            raise _NoShape
        attribute = self._attribute
        head = (
            op.name,
            tuple([name(value) for value in operands(op)]),
            tuple([attribute(r.type) for r in op.results]),
            tuple(sorted((k, attribute(v)) for k, v in op.properties.items())),
            tuple(sorted((k, attribute(v)) for k, v in op.attributes.items())),
        )
        regions: list[Shape] = []
        for region in op.regions:
            blocks: list[Shape] = []
            for block in region.blocks:
                blocks.append(self._block_shape(block, names, name))
            regions.append(tuple(blocks))
        for result in op.results:
            names[id(result)] = len(names)
        return head, tuple(regions)

    def _block_shape(self, block: Block, names: dict[int, int], name: _Namer) -> Shape:
        for argument in block.args:
            names[id(argument)] = len(names)
        shapes: list[Shape] = [
            tuple([self._attribute(argument.type) for argument in block.args])
        ]
        for nested in block.ops:
            if nested.regions:
                # Memoized: its own numbering, its outside values renamed here.
                shape, outside = self._of_nested(nested)
                shapes.append((shape, tuple([name(v) for v in outside])))
                for result in nested.results:
                    names[id(result)] = len(names)
            else:
                shapes.append(self._op_shape(nested, names, name))
        return tuple(shapes)

    def _describe(self, outside: Sequence[SSAValue]) -> Shape:
        """
        What the analyses see of the outside values, in order: a constant, a
        fold of other outside values (described after them), else a value
        of a type, a tensor argument of a function or not.
        """
        numbers = {value: n for n, value in enumerate(outside)}
        pending = list(outside)
        descriptions: list[Shape] = []
        for value in pending:  # grows as folds bring in their operands
            value_type = self._attribute(value.type)
            if (constant := constant_int(value)) is not None:
                descriptions.append(("constant", value_type, constant))
                continue
            if isinstance(value, OpResult) and isinstance(value.op, _FOLDED):
                operands: list[int] = []
                for operand in value.op.operands:
                    if operand not in numbers:
                        numbers[operand] = len(pending)
                        pending.append(operand)
                    operands.append(numbers[operand])
                descriptions.append((value.op.name, value_type, tuple(operands)))
                continue
            descriptions.append(("value", value_type, is_noalias_argument(value)))
        return tuple(descriptions)
