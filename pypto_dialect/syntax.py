"""
The custom syntax shared by the tile ops, written by hand for speed.

Every tile op reads `%a, %b[%i, ...] attr-dict : A, B -> R`: some operands
(the last ones optionally present), the last one optionally indexed, the
attribute dictionary, then the operand types and the result type
(`TileOpSyntax` says which). It is what the
declarative `assembly_format` of the ops was, at a fraction of its cost: the
pypto types come from the parse cache of `pypto_dialect.types`, print from
their cached text, and ops are created without re-checking their arguments.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum, auto
from typing import ClassVar, Self, TypeVar

from xdsl.dialects.builtin import IndexType
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.irdl.constraints import RangeConstraint, VerificationContext
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.types import parse_type, type_text

_INDEX = IndexType()

_OpT = TypeVar("_OpT", bound=IRDLOperation)


class ResultSyntax(Enum):
    """Where the result type of a tile op comes from."""

    NONE = auto()
    """The op has no result."""
    PRINTED = auto()
    """Printed last, after `->` when operand types are printed."""
    FIRST = auto()
    """The type of the first operand."""


@dataclass(frozen=True)
class TileOpSyntax:
    """
    `operands` SSA operands and up to `optional` more, then `[indices]` when
    `indexed`, the attribute dictionary, `:`, the operand types when
    `operand_types` (else every operand has the result type), and the result
    type per `result`.
    """

    operands: int
    indexed: bool = False
    operand_types: bool = True
    result: ResultSyntax = ResultSyntax.PRINTED
    optional: int = 0
    """Trailing operands that may be absent (printed only when present)."""

    def __post_init__(self) -> None:
        if self.result is ResultSyntax.FIRST and not self.operand_types:
            raise ValueError("a result typed as the first operand needs its type")
        if self.optional and (self.indexed or not self.operand_types):
            raise ValueError("optional operands need their types and no indices")


# --------------------------------------------------------------------------- #
# Pieces
# --------------------------------------------------------------------------- #


def parse_indices(parser: Parser) -> Sequence[SSAValue]:
    """`[%i, %j]`: index operands."""
    parser.parse_punctuation("[")
    if parser.parse_optional_punctuation("]") is not None:
        return []
    indices = parser.parse_comma_separated_list(
        parser.Delimiter.NONE, lambda: parser.parse_operand(_INDEX)
    )
    parser.parse_punctuation("]")
    return indices


def print_indices(printer: Printer, indices: Sequence[SSAValue]) -> None:
    printer.print_string("[")
    printer.print_list(indices, printer.print_ssa_value)
    printer.print_string("]")


def parse_checked_type(
    parser: Parser, constraint: RangeConstraint, context: VerificationContext
) -> Attribute:
    """A type that must satisfy an operand or result constraint of the op."""
    start = parser.pos
    parsed = parse_type(parser)
    try:
        constraint.verify((parsed,), context)
    except VerifyException as error:
        parser.raise_error(str(error), start)
    return parsed


def separated(types: Sequence[Attribute]) -> list[str | Attribute]:
    """`types` with `, ` between them, for `print_pieces`."""
    pieces: list[str | Attribute] = []
    for index, type_ in enumerate(types):
        if index:
            pieces.append(", ")
        pieces.append(type_)
    return pieces


def print_pieces(printer: Printer, pieces: Sequence[str | Attribute]) -> None:
    """Text and types, in as few prints as the pypto types (cached text) allow."""
    text = ""
    for piece in pieces:
        if isinstance(piece, str):
            text += piece
        elif (known := type_text(piece)) is not None:
            text += known
        else:
            if text:
                printer.print_string(text)
            printer.print_attribute(piece)
            text = ""
    if text:
        printer.print_string(text)


# --------------------------------------------------------------------------- #
# Whole ops
# --------------------------------------------------------------------------- #


def _parse_operands(parser: Parser, syntax: TileOpSyntax) -> list[UnresolvedOperand]:
    """The operands: the required ones, then the optional ones given."""
    operands: list[UnresolvedOperand] = []
    for index in range(syntax.operands):
        if index:
            parser.parse_punctuation(",")
        operands.append(parser.parse_unresolved_operand())
    for _ in range(syntax.optional):
        if parser.parse_optional_punctuation(",") is None:
            break
        operands.append(parser.parse_unresolved_operand())
    return operands


def parse_tile_op(cls: type[_OpT], parser: Parser, syntax: TileOpSyntax) -> _OpT:
    """Parse the custom syntax of `cls` (after its name)."""
    operands = _parse_operands(parser, syntax)
    indices = parse_indices(parser) if syntax.indexed else ()
    attributes = parser.parse_optional_attr_dict()
    parser.parse_punctuation(":")
    definition = cls.get_irdl_definition()
    context = VerificationContext()
    types: list[Attribute] = []
    if syntax.operand_types:
        for index in range(len(operands)):
            if index:
                parser.parse_punctuation(",")
            constraint = definition.operands[index][1].constr
            types.append(parse_checked_type(parser, constraint, context))
    result_types: list[Attribute] = []
    if syntax.result is ResultSyntax.PRINTED:
        if types:
            parser.parse_punctuation("->")
        constraint = definition.results[0][1].constr
        result_types.append(parse_checked_type(parser, constraint, context))
        if not syntax.operand_types:
            types = result_types * syntax.operands
    elif syntax.result is ResultSyntax.FIRST:
        result_types.append(types[0])
    resolved = [
        parser.resolve_operand(operand, type_)
        for operand, type_ in zip(operands, types, strict=True)
    ]
    return cls.create(
        operands=[*resolved, *indices],
        result_types=result_types,
        attributes=attributes,
    )


def print_tile_op(op: Operation, printer: Printer, syntax: TileOpSyntax) -> None:
    """Print the custom syntax of `op` (after its name)."""
    operands = op.operands
    printed = len(operands) if syntax.optional else syntax.operands
    for index in range(printed):
        printer.print_string(", " if index else " ")
        printer.print_ssa_value(operands[index])
    if syntax.indexed:
        print_indices(printer, operands[syntax.operands :])
    if op.attributes:
        printer.print_op_attributes(op.attributes)
    pieces: list[str | Attribute] = [" : "]
    if syntax.operand_types:
        pieces += separated([operands[i].type for i in range(printed)])
    if syntax.result is ResultSyntax.PRINTED:
        if len(pieces) > 1:
            pieces.append(" -> ")
        pieces.append(op.results[0].type)
    print_pieces(printer, pieces)


class TileSyntaxOp(IRDLOperation):
    """An op read and printed in the tile op syntax its `SYNTAX` describes."""

    SYNTAX: ClassVar[TileOpSyntax]

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        return parse_tile_op(cls, parser, cls.SYNTAX)

    def print(self, printer: Printer) -> None:
        print_tile_op(self, printer, self.SYNTAX)
