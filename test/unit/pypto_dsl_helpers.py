"""
Helpers of the PyPTO frontend and target tests (`test_pypto_dsl_*.py`): a
one-method program around a body, export to text, round trips, the op names
of a module, the message of a `ParseError`; and of the tests against PyPTO's
own build: a derandomized sample of a strategy, a script run by the
interpreter `PYPTO_PYTHON` names.
"""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
from io import StringIO
from typing import Any, TypeVar

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
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


T = TypeVar("T")


def sample(strategy: st.SearchStrategy[T], count: int) -> list[T]:
    """`count` examples of `strategy`, derandomized: the same every run."""
    found: list[T] = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    )
    @given(strategy)
    def collect(example: T) -> None:
        found.append(example)

    collect()
    return found


PYPTO_IMPORT = """
import json, sys
try:
    import pypto.language as pl
    from pypto import ir, passes
except Exception as error:  # any failure to import: nothing to check
    print(json.dumps({"unavailable": f"{type(error).__name__}: {error}"}))
    sys.exit(0)
payload = json.loads(sys.stdin.read())
"""
"""
The start of a script for `run_pypto`: PyPTO imported (`pl`, `ir`,
`passes`), or a line saying why not; `payload` read.
"""


def run_pypto(script: str, payload: object) -> dict[str, Any]:
    """
    The JSON object that `PYPTO_IMPORT + script`, run by the interpreter
    `PYPTO_PYTHON` names with `payload` (as JSON) on its standard input,
    prints last; a skip saying why when there is no such interpreter or it
    cannot import `pypto`.
    """
    python = os.environ.get("PYPTO_PYTHON")
    if not python:
        pytest.skip("PYPTO_PYTHON is not set (an interpreter that can import pypto)")
    done = subprocess.run(
        [python, "-c", PYPTO_IMPORT + script],
        input=json.dumps(payload),
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    if "unavailable" in answer:
        pytest.skip(f"{python} cannot import pypto ({answer['unavailable']})")
    return answer
