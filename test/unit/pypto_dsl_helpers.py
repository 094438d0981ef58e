"""
Helpers of the PyPTO frontend and target tests (`test_pypto_dsl_*.py`): a
one-method program around a body, export to text, round trips, the op names
of a module, the message of a `ParseError`.
"""

from __future__ import annotations

import textwrap
from io import StringIO

import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError

from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import parse_pypto, print_pypto
from pypto_dialect.walks import walk_ops

CTX = pypto_context()

PARAMS = (
    "x: pl.Tensor[[16, 64], pl.FP32], h: pl.Tensor[[16, 64], pl.BF16], "
    "a: pl.Tensor[[16, 64], pl.BF16], b: pl.Tensor[[64, 32], pl.BF16], "
    "n: pl.Scalar[pl.INDEX]"
)


def program(body: str, params: str = PARAMS, returns: str = "") -> str:
    """A one-method PyPTO program around `body`."""
    code = textwrap.indent(textwrap.dedent(body).strip("\n"), " " * 8)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n    @pl.function\n"
        f"    def k(self, {params}){returns}:\n{code}\n"
    )


def export(module: ModuleOp) -> str:
    stream = StringIO()
    print_pypto(module, stream)
    return stream.getvalue()


def round_trip(text: str) -> tuple[ModuleOp, str]:
    """Import `text`, export it; check that the export is a fixed point."""
    module = parse_pypto(CTX, text, "k.py")
    exported = export(module)
    assert export(parse_pypto(CTX, exported, "again.py")) == exported
    return module, exported


def op_names(module: Operation) -> set[str]:
    return {op.name for op in walk_ops(module)}


def error(text: str) -> str:
    with pytest.raises(ParseError) as info:
        parse_pypto(CTX, text, "k.py")
    return info.value.msg
