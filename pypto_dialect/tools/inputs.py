"""
The input of `pypto-run` and `pypto-report`: a file (or `-`, standard
input) read with `source_text.read_input`, parsed by the frontend of its
extension (`source_text.input_format`, the rule `pypto-opt` follows too),
every problem a `ToolFailure`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from xdsl.utils.exceptions import ParseError

from pypto_dialect.source_text import (
    UnreadableInput,
    decode_source,
    input_format,
    located_error,
    read_input,
)
from pypto_dialect.tools.diagnostics import ToolFailure, reported_diagnostics
from pypto_dialect.tools.universe import FRONTEND_NAMES, INPUT_FORMATS

if TYPE_CHECKING:
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp

    from pypto_dialect.checked import OpSpans


def source_name(path: str) -> str:
    """How messages name the input `path`."""
    return "<stdin>" if path == "-" else path


def parse_input(ctx: Context, path: str, tool: str, op_spans: OpSpans) -> ModuleOp:
    """
    The module in `path`: a read, decode, parse or verifier error met while
    parsing is a `ToolFailure` (`tool: error: cannot read NAME: why`, or
    located at the source).
    """
    name = source_name(path)
    try:
        extension = input_format(path, INPUT_FORMATS)
        text = decode_source(read_input(path))
    except UnreadableInput as error:
        raise ToolFailure(f"{tool}: error: cannot read {name}: {error}") from None
    with reported_diagnostics(name, op_spans):
        try:
            if extension in FRONTEND_NAMES:
                from pypto_dialect.dsl import parse_pypto

                return parse_pypto(ctx, text, name, op_spans=op_spans)
            from pypto_dialect.checked import parse_module

            return parse_module(ctx, text, name, op_spans=op_spans)
        except ParseError as error:
            raise ToolFailure(located_error(error.span, error.msg)) from None
