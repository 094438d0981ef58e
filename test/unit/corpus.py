"""The modules of the examples and of the lit inputs, for tests that run on all of them."""

from __future__ import annotations

import re
from pathlib import Path

from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from pypto_dialect.context import pypto_context

ROOT = Path(__file__).parents[2]
INPUT = re.compile(r"RUN: (xdsl-opt|pypto-opt)[^|]* %s")
"""A lit file whose own text is a tool's input (not a PyPTO program)."""


def parsed(text: str) -> ModuleOp:
    """`text` parsed, unregistered ops allowed, not verified."""
    return Parser(pypto_context(allow_unregistered=True), text).parse_module()


def parsed_inputs() -> list[tuple[str, ModuleOp]]:
    """Every chunk of the examples and of the lit inputs that parses, named."""
    files = [
        *ROOT.glob("examples/*.mlir"),
        *(ROOT / "test" / "filecheck").rglob("*.mlir"),
    ]
    found: list[tuple[str, ModuleOp]] = []
    for path in sorted(files):
        if "Output" in path.parts:  # lit's outputs
            continue
        text = path.read_text()
        if path.parent.name != "examples" and not INPUT.search(text):
            continue
        for k, chunk in enumerate(text.split("// -----")):
            try:
                found.append((f"{path.stem}-{k}", parsed(chunk)))
            except (ParseError, VerifyException, ValueError):
                # A case of a parse error test (some parsers verify; xDSL's
                # lexer raises ValueError on integers of over 4,300 digits).
                continue
    return found


def sound_inputs() -> list[tuple[str, ModuleOp]]:
    """The chunks of `parsed_inputs` that verify."""
    found: list[tuple[str, ModuleOp]] = []
    for name, module in parsed_inputs():
        try:
            module.verify()
        except VerifyException:
            continue  # a case of an error test
        found.append((name, module))
    return found
