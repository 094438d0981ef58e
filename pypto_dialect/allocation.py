"""
Declared allocations: `pypto.alloc`, on-chip storage of one's own (PyPTO's
`pl.MemRef("name")`, or `pl.MemRef("name", slots=N)` for N uniform slots),
and `pypto.bind`, which puts a tile into it (into slot k: `...[k]`).

A binding is an op of its own rather than a part of the tile type because
the slot may be a runtime value (`i % 2`), and a type cannot hold an SSA
value. `%t = pypto.bind %v to %a[%k]` is `%v`'s value, held in slot `%k` of
`%a` from the binding to the last use of `%t`; when `%v` has no other use,
the op that produces `%v` computes it into the slot directly (what PyPTO's
annotation on that op's result means, and what the analyses assume).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import ClassVar

from xdsl.dialects import func
from xdsl.dialects.builtin import I64, IndexType, IntegerAttr, StringAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    VarConstraint,
    base,
    operand_def,
    opt_operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import HasParent
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.constants import constant_int
from pypto_dialect.effects import (
    AllocationBinding,
    DeclaresAllocation,
    WritesAllocation,
)
from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.syntax import parse_attributes_and_type, print_pieces
from pypto_dialect.types import SLOT_SPACES, AllocType, MemorySpace, TileType

MAX_SLOTS = 16
"""The most slots of one allocation (ptoas's bound for a multi-buffer region)."""

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_SHOWN = 40
"""The longest name a message quotes whole."""


def _quoted(name: str) -> str:
    """`"name"` for a message, shortened when long."""
    shown = name if len(name) <= _SHOWN else name[: _SHOWN - 3] + "..."
    return f'"{shown}"'


def _slot_spaces() -> str:
    return ", ".join(sorted(str(space) for space in SLOT_SPACES))


@pypto_op_definition
class AllocOp(IRDLOperation):
    """
    `%a = pypto.alloc "name" slots N : !pypto.alloc<space>`: an allocation of
    one's own, in a `func.func`'s body; `slots 1` (the default) is not printed.
    """

    name = "pypto.alloc"

    alloc_name = prop_def(StringAttr)
    slots = prop_def(IntegerAttr[I64])
    result = result_def(AllocType)

    traits = traits_def(HasParent(func.FuncOp), DeclaresAllocation())

    def __init__(self, alloc_name: str, space: MemorySpace | AllocType, slots: int = 1):
        alloc_type = space if isinstance(space, AllocType) else AllocType(space)
        super().__init__(
            result_types=[alloc_type],
            properties={
                "alloc_name": StringAttr(alloc_name),
                "slots": IntegerAttr(slots, i64),
            },
        )

    @property
    def label(self) -> str:
        """The allocation's name."""
        return self.alloc_name.data

    @property
    def num_slots(self) -> int:
        return self.slots.value.data

    @property
    def memory_space(self) -> MemorySpace:
        result_type = self.result.type
        assert isinstance(result_type, AllocType)
        return result_type.memory_space

    def bindings(self) -> Iterator[BindOp]:
        """The `pypto.bind` ops that bind a tile to this allocation."""
        for use in self.result.uses:
            if isinstance(use.operation, BindOp):
                yield use.operation

    def verify_(self) -> None:
        if _NAME.fullmatch(self.label) is None:
            raise VerifyException(
                f"allocation name {_quoted(self.label)} is not an identifier"
            )
        slots = self.num_slots
        if not 1 <= slots <= MAX_SLOTS:
            raise VerifyException(
                f"an allocation has 1 to {MAX_SLOTS} slots, got {slots}"
            )
        if slots > 1 and self.memory_space not in SLOT_SPACES:
            raise VerifyException(
                f"an allocation of {slots} slots must be in memory space "
                f"{_slot_spaces()}, got {self.memory_space.value}"
            )
        self._verify_uses()
        self._verify_unique_names()

    def _verify_uses(self) -> None:
        """Only bindings use it, and the tiles bound to its slots have one type."""
        slot_type: Attribute | None = None
        for use in self.result.uses:
            user = use.operation
            if not isinstance(user, BindOp) or use.index != 1:
                raise VerifyException(
                    f"allocation {_quoted(self.label)} is used by '{user.name}': "
                    "only pypto.bind binds to an allocation"
                )
            if self.num_slots == 1:
                continue
            if slot_type is None:
                slot_type = user.result.type
            elif user.result.type != slot_type:
                first, second = sorted((str(slot_type), str(user.result.type)))
                raise VerifyException(
                    f"the slots of allocation {_quoted(self.label)} are uniform, but "
                    f"tiles of types {first} and {second} are bound to them"
                )

    def _verify_unique_names(self) -> None:
        """
        One declaration per name in the function. The first declaration of a
        block checks the whole body (each declaration walks back only to the
        one before it): linear in the body.
        """
        block = self.parent
        earlier = self.prev_op
        while earlier is not None and not isinstance(earlier, AllocOp):
            earlier = earlier.prev_op
        if block is None or earlier is not None or block.parent is None:
            return
        seen: set[str] = set()
        for other in _declarations(block.parent.blocks):
            if other.label in seen:
                raise VerifyException(
                    f"allocation {_quoted(other.label)} is declared twice in the "
                    "function"
                )
            seen.add(other.label)

    @classmethod
    def parse(cls, parser: Parser) -> AllocOp:
        alloc_name = parser.parse_str_literal()
        slots = 1
        if parser.parse_optional_keyword("slots") is not None:
            start = parser.pos
            slots = parser.parse_integer(allow_boolean=False, allow_negative=False)
            if slots >= 1 << 63:
                parser.raise_error(
                    "the slot count does not fit in a 64-bit integer", start, parser.pos
                )
        attributes, alloc_type = parse_attributes_and_type(parser, AllocType)
        return cls.create(
            result_types=[alloc_type],
            properties={
                "alloc_name": StringAttr(alloc_name),
                "slots": IntegerAttr(slots, i64),
            },
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_string_literal(self.label)
        if self.num_slots != 1:
            printer.print_string(f" slots {self.num_slots}")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        print_pieces(printer, [" : ", self.result.type])


def _declarations(blocks: Iterable[Block]) -> Iterator[AllocOp]:
    for block in blocks:
        for op in block.ops:
            if isinstance(op, AllocOp):
                yield op


@pypto_op_definition
class BindOp(IRDLOperation, AllocationBinding):
    """
    `%t = pypto.bind %v to %a[%k] : tile`: `%v` held in slot `%k` of the
    allocation `%a` (`to %a` alone for an allocation of one slot).
    """

    name = "pypto.bind"

    T: ClassVar = VarConstraint("T", base(TileType))

    tile = operand_def(T)
    allocation = operand_def(AllocType)
    slot = opt_operand_def(IndexType)
    result = result_def(T)

    traits = traits_def(WritesAllocation())

    def __init__(
        self,
        tile: SSAValue | Operation,
        allocation: SSAValue | Operation,
        slot: SSAValue | Operation | None = None,
    ):
        super().__init__(
            operands=[tile, allocation, [] if slot is None else [slot]],
            result_types=[SSAValue.get(tile).type],
        )

    @property
    def bound_allocation(self) -> SSAValue:
        return self.allocation

    @property
    def bound_slot(self) -> SSAValue | None:
        return self.slot

    @property
    def declaration(self) -> AllocOp:
        """The `pypto.alloc` of the allocation (verified IR)."""
        owner = self.allocation.owner
        assert isinstance(owner, AllocOp), "verified bindings name a pypto.alloc"
        return owner

    def verify_(self) -> None:
        declaration = self.allocation.owner
        if not isinstance(declaration, AllocOp):
            raise VerifyException("the allocation must be the result of a pypto.alloc")
        tile = self.tile.type
        assert isinstance(tile, TileType)
        if tile.memory_space is not declaration.memory_space:
            raise VerifyException(
                f"a tile in memory space {tile.memory_space.value} cannot be bound to "
                f"allocation {_quoted(declaration.label)} in "
                f"{declaration.memory_space.value}"
            )
        slots = declaration.num_slots
        if self.slot is None:
            if slots > 1:
                raise VerifyException(
                    f"a binding to allocation {_quoted(declaration.label)} of {slots} "
                    "slots needs a slot index"
                )
            return
        if slots == 1:
            raise VerifyException(
                f"allocation {_quoted(declaration.label)} has one slot: a binding to "
                "it takes no slot index"
            )
        index = constant_int(self.slot)
        if index is not None and not 0 <= index < slots:
            raise VerifyException(
                f"slot index {index} is out of range of allocation "
                f"{_quoted(declaration.label)} of {slots} slots"
            )

    @classmethod
    def parse(cls, parser: Parser) -> BindOp:
        tile = parser.parse_unresolved_operand()
        parser.parse_keyword("to")
        allocation = parser.parse_unresolved_operand()
        slot = None
        if parser.parse_optional_punctuation("[") is not None:
            slot = parser.parse_operand(IndexType())
            parser.parse_punctuation("]")
        attributes, tile_type = parse_attributes_and_type(parser, TileType)
        operands = [
            parser.resolve_operand(tile, tile_type),
            parser.resolve_operand(allocation, AllocType(tile_type.memory_space)),
            *([] if slot is None else [slot]),
        ]
        return cls.create(
            operands=operands, result_types=[tile_type], attributes=attributes
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_ssa_value(self.tile)
        printer.print_string(" to ")
        printer.print_ssa_value(self.allocation)
        if self.slot is not None:
            printer.print_string("[")
            printer.print_ssa_value(self.slot)
            printer.print_string("]")
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        print_pieces(printer, [" : ", self.result.type])


def filled_binding(op: Operation) -> BindOp | None:
    """
    The binding `op` computes its tile into: that of its one result, when
    the binding, in `op`'s block, is the result's only use (as the tile).
    Not for bindings themselves, nor ops with regions.
    """
    if op.regions or len(op.results) != 1 or type(op) is BindOp:
        return None
    use = op.results[0].get_unique_use()
    if use is None or use.index != 0:  # the tile, not a slot index
        return None
    user = use.operation
    if type(user) is not BindOp or user.parent is not op.parent:
        return None
    return user
