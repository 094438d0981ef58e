"""An xDSL context with everything a pypto kernel uses."""

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf

from pypto_dialect.dialect import PyPTO


def pypto_context(*, allow_unregistered: bool = False) -> Context:
    """
    A context with the builtin, `func`, `arith`, `scf` and `pypto` dialects,
    and `cf` and `math`, which upstream lowerings of them produce.
    """
    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in (Builtin, Func, Arith, Scf, Cf, Math, PyPTO):
        ctx.load_dialect(dialect)
    return ctx
