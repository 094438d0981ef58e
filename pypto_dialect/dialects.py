"""The dialects this distribution defines, as lazy factories by name."""

from collections.abc import Callable

from xdsl.ir import Dialect


def _pypto() -> Dialect:
    from pypto_dialect.dialect import PyPTO

    return PyPTO


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """
    Our dialects, for the `xdsl.universe` entry point and `pypto_context()`;
    a factory imports its dialect only when called.
    """
    return {"pypto": _pypto}
