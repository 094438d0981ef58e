"""Attributes of the `pypto` dialect."""

from __future__ import annotations

import re
from collections.abc import Iterable

from xdsl.ir import Data
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.numbers import INDEX_MAX, integer_text
from pypto_dialect.xdsl_internals import skip_to

MEMBERSHIP_ATTR_NAME = "pypto.pipeline_membership"
"""The discardable attribute `lower-pipeline-loops` puts on replicated tile ops."""

StagePair = tuple[int, int]
"""A `(group, stage)` pair of one replicated pipeline region."""

_PRINTED_PAIRS = re.compile(r"<(\d{1,18}:\d{1,18}(?:, \d{1,18}:\d{1,18})*)>", re.ASCII)
"""
The parameters as they are printed, which need no lexer to read (numbers of
up to 18 digits, all in range; others take the checked path).
"""


def _pair(text: str) -> StagePair:
    group, stage = text.split(":")
    return int(group), int(stage)


@irdl_attr_definition
class MembershipAttr(Data[tuple[StagePair, ...]]):
    """
    `#pypto.membership<g:s, g2:s2, ...>`: the (group, stage) pairs of the
    replicated pipeline regions an op belongs to, innermost pipeline first.
    """

    name = "pypto.membership"

    def __init__(self, pairs: Iterable[StagePair]):
        super().__init__(tuple((group, stage) for group, stage in pairs))

    @property
    def pairs(self) -> tuple[StagePair, ...]:
        return self.data

    def appended(self, group: int, stage: int) -> MembershipAttr:
        """A copy of this membership with an outer `(group, stage)` pair added."""
        return MembershipAttr((*self.data, (group, stage)))

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> tuple[StagePair, ...]:
        printed = _PRINTED_PAIRS.match(parser.lexer.input.content, parser.pos)
        if printed is not None and skip_to(parser, printed.end()):
            return tuple(_pair(text) for text in printed[1].split(", "))

        def parse_index(role: str) -> int:
            start = parser.pos
            value = parser.parse_integer(
                allow_boolean=False,
                allow_negative=False,
                context_msg=f" (a non-negative {role} of a group:stage pair)",
            )
            if value > INDEX_MAX:
                parser.raise_error(
                    f"membership {role} {integer_text(value)} is larger than "
                    f"{INDEX_MAX}",
                    start,
                    parser.pos,
                )
            return value

        def parse_pair() -> StagePair:
            group = parse_index("group")
            parser.parse_punctuation(":")
            return group, parse_index("stage")

        with parser.in_angle_brackets():
            return tuple(
                parser.parse_comma_separated_list(parser.Delimiter.NONE, parse_pair)
            )

    def print_parameter(self, printer: Printer) -> None:
        pairs = ", ".join(f"{group}:{stage}" for group, stage in self.data)
        printer.print_string(f"<{pairs}>")

    def verify(self) -> None:
        if not self.data:
            raise VerifyException("membership needs at least one (group, stage) pair")
        if any(not 0 <= number <= INDEX_MAX for pair in self.data for number in pair):
            pairs = ", ".join(
                f"({integer_text(group)}, {integer_text(stage)})"
                for group, stage in self.data
            )
            raise VerifyException(
                "membership groups and stages must be non-negative and at most "
                f"{INDEX_MAX}, got {pairs}"
            )
