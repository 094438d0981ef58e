"""
Parsing and verification that report bad input only as diagnostics.

xDSL's parser and verifiers assume well-formed input in places: on some
malformed programs they raise `KeyError`, `AttributeError`, `ValueError` or
`RecursionError` instead of a diagnostic (a generic `func.func` without
`function_type`, an operand that names a value of an inner region, very deep
nesting). `parse_module` and `verify_module` do the same work and turn those
failures into a located `ParseError` or `VerifyException`, so that a caller
(our tools, a user's pipeline, the fuzz tests) only ever sees diagnostics.
Failures raised by this project's own code are bugs: they are not converted.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import sys
import traceback
from bisect import bisect_right
from types import TracebackType

import xdsl
from xdsl.context import Context
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    LocationAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation
from xdsl.parser import Parser
from xdsl.parser.core import ForwardDeclaredValue
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.utils.lexer import Input, Span
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRToken, MLIRTokenKind

from pypto_dialect.cores import core_groups
from pypto_dialect.dominance import DominanceWalk
from pypto_dialect.numbers import index_misfit, integer_text
from pypto_dialect.pipeline import body_dominance_checked_by_caller
from pypto_dialect.walks import walk_ops

OpSpans = dict[Operation, Span[str]]
"""Where in the source each parsed op starts."""

_XDSL_DIRECTORY = os.path.dirname(xdsl.__file__) + os.sep


def _raised_by_xdsl(error: BaseException) -> bool:
    """Whether the innermost frame of `error`'s traceback is xDSL's code."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and frames[-1].filename.startswith(_XDSL_DIRECTORY)


def _is_xdsl_crash(error: Exception) -> bool:
    """A non-diagnostic failure of xDSL on malformed input."""
    if isinstance(error, DiagnosticException | ParseError):
        return False
    return isinstance(error, MemoryError) or _raised_by_xdsl(error)


def describe_exception(error: BaseException) -> str:
    """`Type: message`, or `Type` alone for an exception without a message."""
    message = str(error)
    return type(error).__name__ + (f": {message}" if message else "")


_MAX_DIGITS = sys.int_info.default_max_str_digits
"""Python prints no integer of more decimal digits (4,300)."""
_MAX_HEX_DIGITS = int(_MAX_DIGITS / math.log10(16))
"""The most hex digits of a literal whose value prints in `_MAX_DIGITS` (3,571)."""


class _LinearLexer(MLIRLexer):
    """
    xDSL's lexer with a string-literal pattern that cannot backtrack: xDSL
    0.75's nests `+` in `*`, which takes 2^n steps on an unterminated string
    of n characters on one line (a `"` typed into a type hangs the parser);
    and a bound on integer literals, so that every integer of the IR prints
    (xDSL's printer and its messages print them in decimal).
    """

    _unescaped_characters_regex = re.compile(
        r'"(?:[^"\\\n\v\f]|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*"'
    )

    def _lex_number(self, start_pos: int) -> MLIRToken:
        token = super()._lex_number(start_pos)
        if token.kind is not MLIRTokenKind.INTEGER_LIT:
            return token
        text = token.text
        hexadecimal = text.startswith("0x")
        digits = len(text) - 2 if hexadecimal else len(text)
        limit = _MAX_HEX_DIGITS if hexadecimal else _MAX_DIGITS
        if digits > limit:
            kind = "hex digits" if hexadecimal else "digits"
            raise ParseError(
                token.span,
                f"integer literal of {digits:,} {kind} is too large (at most "
                f"{limit:,}: no integer of more than {_MAX_DIGITS:,} decimal "
                "digits can be printed)",
            )
        return token


class CheckedParser(Parser):
    """
    A parser that reports xDSL's crashes on malformed input as parse errors,
    remembers where in the source each operation starts (`op_spans`), and
    gives each op without a `loc(...)` its `file:line:col` location, as
    `mlir-opt` does: passes copy it to the ops they create, so diagnostics
    about those can be located too (`location_spans`).
    """

    def __init__(
        self,
        ctx: Context,
        source: str,
        name: str = "<unknown>",
        op_spans: OpSpans | None = None,
        line_offset: int = 0,
    ):
        super().__init__(ctx, "", name)
        self._parser_state = ParserState(_LinearLexer(Input(source, name)))
        self.op_spans: OpSpans = {} if op_spans is None else op_spans
        self.location_spans: dict[LocationAttr, Span[str]] = {}
        self._line_offset = line_offset

    def parse_operation(self) -> Operation:
        span = self._current_token.span
        op = super().parse_operation()
        self.op_spans[op] = dataclasses.replace(span, line_offset=self._line_offset)
        return op

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        if allow_implicit_module and self._current_token.kind is MLIRTokenKind.EOF:
            # Only whitespace and comments: an empty module, as mlir-opt reads it.
            return ModuleOp([])
        try:
            module = super().parse_module(allow_implicit_module)
        except RecursionError:
            raise ParseError(
                self._current_token.span,
                "operations are nested too deeply to parse",
            ) from None
        except Exception as error:
            if not _is_xdsl_crash(error):
                raise
            raise ParseError(
                self._current_token.span,
                f"malformed input (xDSL's parser failed: {describe_exception(error)})",
            ) from error
        self._check_operands_defined(module)
        self._locate_ops()
        return module

    def _locate_ops(self) -> None:
        """Give each parsed op without a location the one of its first token."""
        text = self.lexer.input.content
        line_starts = [0, *(m.end() for m in re.finditer("\n", text))]
        filename = StringAttr(self.lexer.input.name)
        for op, span in self.op_spans.items():
            if op.location != UNKNOWN_LOC:
                continue
            line = bisect_right(line_starts, span.start)
            column = span.start - line_starts[line - 1] + 1
            location = FileLineColLoc(
                filename, IntAttr(line + self._line_offset), IntAttr(column)
            )
            op.location = location
            self.location_spans.setdefault(location, span)

    def _check_operands_defined(self, module: ModuleOp) -> None:
        """
        Reject operands that still refer to a forward declaration: xDSL leaves
        one when a name is defined later, but only in a nested region.
        """
        for op in walk_ops(module):
            for index, operand in enumerate(op.operands):
                if not isinstance(operand, ForwardDeclaredValue):
                    continue
                name = "" if operand.name_hint is None else f" %{operand.name_hint}"
                raise ParseError(
                    self.op_spans.get(op, self._current_token.span),
                    f"operand #{index}{name} of '{op.name}' is not defined "
                    "before its use in an enclosing region",
                )


def parse_module(
    ctx: Context,
    text: str,
    name: str = "<unknown>",
    *,
    op_spans: OpSpans | None = None,
) -> ModuleOp:
    """
    Parse `text` (named `name` in messages) into a module; malformed input
    raises `ParseError`. Op source spans are recorded in `op_spans`.
    """
    return CheckedParser(ctx, text, name, op_spans).parse_module()


def _failing_op(tb: TracebackType | None) -> Operation | None:
    """The innermost op whose method is on the traceback `tb`."""
    failing: Operation | None = None
    while tb is not None:
        receiver = tb.tb_frame.f_locals.get("self")
        if isinstance(receiver, Operation):
            failing = receiver
        tb = tb.tb_next
    return failing


def verify_module(root: Operation) -> None:
    """
    `root.verify()`, with xDSL's crashes on malformed ops (a missing or
    ill-typed property its verifier reads, say) raised as a
    `VerifyException` located at the op; then what xDSL does not check,
    located at the op: `index` constants fit in 64 bits (`index_misfit`),
    each region of an `scf.if` yields its result types, every use is
    dominated by its definition (`DominanceWalk`; the pipelines' own check
    of their bodies is then redundant: skipped), and the kernels that run
    together are declared right (`cores.core_groups`).
    """
    with body_dominance_checked_by_caller():
        _verify_ops(root)
    for op in walk_ops(root):
        if type(op) is arith.ConstantOp:
            _verify_index_constant(op)
        elif type(op) is scf.IfOp:
            _verify_if_yields(op)
    violation = DominanceWalk(lambda _: False).first_violation(root.regions)
    if violation is not None:
        message = violation.describe()
        violation.op.emit_error(message, VerifyException(message))
    if isinstance(root, ModuleOp):
        core_groups(root)


def _verify_if_yields(op: scf.IfOp) -> None:
    """
    Each region of an `scf.if` yields values of its result types, as MLIR
    checks (xDSL does not: a branch yielding nothing verified, and broke the
    interpreter and the PyPTO target). xDSL checks that a block ends in an
    `scf.yield`.
    """
    expected = tuple(op.result_types)
    for index, region in enumerate(op.regions):
        block = region.blocks.first
        if block is None:
            if not expected:
                continue  # no else region, no results
            what = "is empty"
        else:
            terminator = block.last_op
            yielded = () if terminator is None else tuple(terminator.operand_types)
            if yielded == expected:
                continue
            what = f"yields ({_types(yielded)})"
        message = f"region #{index} {what}, but the results are ({_types(expected)})"
        op.emit_error(message, VerifyException(message))


def _types(types: tuple[Attribute, ...]) -> str:
    return ", ".join(map(str, types))


def _verify_index_constant(op: arith.ConstantOp) -> None:
    """An `index` constant must fit in 64 bits (xDSL takes any integer)."""
    value = op.value
    if not isinstance(value, IntegerAttr) or not isinstance(value.type, IndexType):
        return
    misfit = index_misfit(value.value.data)
    if misfit is not None:
        message = f"index constant {integer_text(value.value.data)} {misfit}"
        op.emit_error(message, VerifyException(message))


def _verify_ops(root: Operation) -> None:
    """`root.verify()`, xDSL's crashes raised as located `VerifyException`s."""
    try:
        root.verify()
    except RecursionError:
        # Not at the op: printing the annotated IR would recurse as deeply.
        raise VerifyException("operations are nested too deeply to verify") from None
    except Exception as error:
        if not _is_xdsl_crash(error):
            raise
        op = _failing_op(error.__traceback__) or root
        message = (
            f"malformed operation (xDSL's verifier failed: {describe_exception(error)})"
        )
        op.emit_error(message, VerifyException(message))
