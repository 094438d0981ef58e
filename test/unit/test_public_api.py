"""
What an embedder relies on: the names of `pypto_dialect.__all__` and
`passes.__all__` resolve, lazily (importing either package loads none of
them), and `canonicalize-io-order`'s `order` takes exactly `IOOrder`'s values.
"""

from __future__ import annotations

import subprocess
import sys
from types import ModuleType
from typing import get_type_hints

import pytest
from xdsl.passes import ModulePass

import passes
import pypto_dialect
from passes.canonicalize_io_order import (
    ORDER_NAMES,
    CanonicalizeIOOrderPass,
    IOOrder,
    OrderName,
)


@pytest.mark.parametrize(
    "package", [pypto_dialect, passes], ids=["pypto_dialect", "passes"]
)
def test_every_public_name_resolves(package: ModuleType):
    names: list[str] = package.__all__
    assert names == sorted(names) and names
    for name in names:
        assert getattr(package, name) is not None, name


@pytest.mark.parametrize(
    "package", [pypto_dialect, passes], ids=["pypto_dialect", "passes"]
)
def test_an_unknown_name_is_an_attribute_error(package: ModuleType):
    missing = "nothing"
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        getattr(package, missing)


def test_the_pass_classes_are_those_of_the_registry():
    registry = {factory() for factory in passes.get_all_passes().values()}
    exported = {getattr(passes, n) for n in passes.__all__ if n.endswith("Pass")}
    assert exported == registry
    assert all(issubclass(cls, ModulePass) for cls in exported)


def test_importing_the_packages_loads_none_of_their_names():
    code = "import sys, passes, pypto_dialect\nprint('\\n'.join(sys.modules))"
    finished = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    modules = set(finished.stdout.splitlines())
    homes = {
        "passes.canonicalize_io_order",
        "passes.lower_pipeline_loops",
        "pypto_dialect.dialect",
        "pypto_dialect.checked",
    }
    assert modules & homes == set()


def test_order_takes_the_values_of_the_enum():
    assert tuple(order.value for order in IOOrder) == ORDER_NAMES
    assert get_type_hints(CanonicalizeIOOrderPass)["order"] == OrderName
