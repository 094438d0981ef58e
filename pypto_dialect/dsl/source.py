"""
Positions in PyPTO source text: `ast` nodes to xDSL spans and locations, and
the `ParseError` every problem of the input becomes.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import NoReturn

from xdsl.dialects.builtin import FileLineColLoc, IntAttr, StringAttr
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input, Span

from pypto_dialect.xdsl_internals import new_attribute

_NEWLINE = re.compile("\n")


@dataclass
class SourceFile:
    """The text of a PyPTO program and where its lines start."""

    text: str
    name: str
    line_offset: int = 0
    """Lines that precede `text` in the file (for split input)."""
    input: Input = field(init=False)
    _line_starts: list[int] = field(init=False)
    _file: StringAttr = field(init=False)
    _numbers: dict[int, IntAttr] = field(init=False)
    """The lines and columns of the locations made so far, each made once."""
    _ascii: bool = field(init=False)
    """Whether every character is one byte in UTF-8 (columns need no decoding)."""

    def __post_init__(self) -> None:
        self.input = Input(self.text, self.name)
        starts = [0]
        starts.extend(newline.end() for newline in _NEWLINE.finditer(self.text))
        self._line_starts = starts
        self._file = StringAttr(self.name)
        self._numbers = {}
        self._ascii = self.text.isascii()

    def offset(self, line: int, byte_column: int) -> int:
        """The character offset of `ast`'s (1-based line, UTF-8 byte column)."""
        line = min(max(line, 1), len(self._line_starts))
        start = self._line_starts[line - 1]
        end = self.input.get_end_of_line(start)
        if self._ascii and byte_column >= 0:
            return start + min(byte_column, end - start)
        prefix = self.text[start:end].encode()[:byte_column]
        return start + len(prefix.decode(errors="ignore"))

    def segment(self, node: ast.expr) -> str | None:
        """The text of `node` if it is on one line, else None."""
        if node.end_lineno != node.lineno or node.end_col_offset is None:
            return None
        start = self.offset(node.lineno, node.col_offset)
        return self.text[start : self.offset(node.lineno, node.end_col_offset)]

    def span(self, node: ast.AST) -> Span[str]:
        """The span of `node`, cut at the end of its first line."""
        lineno: int = getattr(node, "lineno", 1)
        start = self.offset(lineno, getattr(node, "col_offset", 0))
        end_line: int | None = getattr(node, "end_lineno", None)
        end_col: int | None = getattr(node, "end_col_offset", None)
        line_end = self.input.get_end_of_line(start)
        end = (
            line_end
            if end_line is None or end_col is None or end_line != lineno
            else self.offset(end_line, end_col)
        )
        return Span(start, max(start, min(end, line_end)), self.input, self.line_offset)

    def char_span(
        self, line: int, column: int, end_column: int | None = None
    ) -> Span[str]:
        """The span at a 1-based line and character column (Python's `SyntaxError`)."""
        line = min(max(line, 1), len(self._line_starts))
        line_start = self._line_starts[line - 1]
        line_end = self.input.get_end_of_line(line_start)
        start = min(line_start + max(column - 1, 0), line_end)
        end = start if end_column is None else line_start + max(end_column - 1, 0)
        return Span(start, max(start, min(end, line_end)), self.input, self.line_offset)

    def location(self, node: ast.AST) -> FileLineColLoc:
        """`file:line:col` of `node` (where its span starts), for the ops built from it."""
        start = self.offset(getattr(node, "lineno", 1), getattr(node, "col_offset", 0))
        line = bisect_right(self._line_starts, start)
        column = start - self._line_starts[line - 1] + 1
        line_attr = self._number(line + self.line_offset)
        return new_attribute(
            FileLineColLoc, self._file, line_attr, self._number(column)
        )

    def _number(self, value: int) -> IntAttr:
        """`IntAttr(value)`, made once per file (each op has a location)."""
        number = self._numbers.get(value)
        if number is None:
            number = self._numbers[value] = IntAttr(value)
        return number

    def line(self, node: ast.AST) -> int:
        """The line of `node` in the file, for messages."""
        return getattr(node, "lineno", 1) + self.line_offset

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        """Raise the `ParseError` of a problem at `node`."""
        raise ParseError(self.span(node), message)
