"""An xDSL context with everything a pypto kernel uses."""

from xdsl.context import Context
from xdsl.dialects.arith import Arith
from xdsl.dialects.builtin import Builtin
from xdsl.dialects.cf import Cf
from xdsl.dialects.func import Func
from xdsl.dialects.math import Math
from xdsl.dialects.scf import Scf

from pypto_dialect.dialects import get_all_dialects

UPSTREAM_DIALECTS = (Builtin, Func, Arith, Scf, Cf, Math)
"""The upstream dialects a kernel uses (`cf`, `math`: what lowerings produce)."""


def pypto_context(*, allow_unregistered: bool = False) -> Context:
    """
    A context with the upstream dialects a kernel uses and every dialect of
    this distribution (the same list as its `xdsl.universe` entry point).
    """
    ctx = Context(allow_unregistered=allow_unregistered)
    for dialect in UPSTREAM_DIALECTS:
        ctx.load_dialect(dialect)
    for factory in get_all_dialects().values():
        ctx.load_dialect(factory())
    return ctx
