"""Comparing runs: outputs must be bit-identical."""

from __future__ import annotations

import numpy as np

from pypto_dialect.interpreter.elements import Array, shaped_type_name
from pypto_dialect.interpreter.kernel import KernelRun


def _bits(array: Array) -> Array:
    return array.view(np.dtype(f"u{array.dtype.itemsize}"))


def bit_identical(lhs: Array, rhs: Array) -> bool:
    """Same dtype, shape and bits (NaNs equal to themselves, -0.0 differs from 0.0)."""
    return (
        lhs.dtype == rhs.dtype
        and lhs.shape == rhs.shape
        and np.array_equal(_bits(lhs), _bits(rhs))
    )


def compare_runs(expected: KernelRun, actual: KernelRun) -> list[str]:
    """One line per output that is not bit-identical in the two runs; empty if none."""
    lhs, rhs = expected.outputs(), actual.outputs()
    differences: list[str] = []
    for name in [*lhs, *(name for name in rhs if name not in lhs)]:
        if name not in rhs:
            differences.append(f"{name}: only in the first run")
        elif name not in lhs:
            differences.append(f"{name}: only in the second run")
        elif not bit_identical(lhs[name], rhs[name]):
            differences.append(f"{name}: {describe_difference(lhs[name], rhs[name])}")
    return differences


def describe_difference(lhs: Array, rhs: Array) -> str:
    """How two arrays that are not bit-identical differ."""
    if lhs.dtype != rhs.dtype or lhs.shape != rhs.shape:
        return f"{shaped_type_name(lhs)} vs {shaped_type_name(rhs)}"
    differs = _bits(lhs) != _bits(rhs)
    first = tuple(int(i) for i in np.argwhere(differs)[0])
    where = f" (first at [{', '.join(map(str, first))}])" if first else ""
    return (
        f"{np.count_nonzero(differs)} of {lhs.size} elements differ{where}: "
        f"{lhs[first]!s} vs {rhs[first]!s}"
    )
