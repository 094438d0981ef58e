"""
Element types: the numpy dtype of every builtin type a kernel computes with,
and the conversion rule of `pypto.tile.cast`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray
from xdsl.dialects.builtin import AnyFloat, IndexType, IntegerType
from xdsl.ir import Attribute
from xdsl.utils.exceptions import InterpretationError

Array: TypeAlias = NDArray[Any]

INDEX_BITWIDTH = 64
"""`index` values are 64-bit integers."""
INDEX_TYPE = IntegerType(INDEX_BITWIDTH)
"""The integer type of `index` values."""

_NUMPY_FLOATS: dict[str, np.dtype[Any]] = {
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
}
"""The builtin float types that numpy has."""

_NARROW_FLOATS = {
    "bf16": "bfloat16",
    "f8E5M2": "float8_e5m2",
    "f8E4M3": "float8_e4m3",
    "f8E4M3FN": "float8_e4m3fn",
    "f8E5M2FNUZ": "float8_e5m2fnuz",
    "f8E4M3FNUZ": "float8_e4m3fnuz",
    "f8E4M3B11FNUZ": "float8_e4m3b11fnuz",
    "f8E3M4": "float8_e3m4",
    "f8E8M0FNU": "float8_e8m0fnu",
    "f6E2M3FN": "float6_e2m3fn",
    "f6E3M2FN": "float6_e3m2fn",
    "f4E2M1FN": "float4_e2m1fn",
}
"""The other builtin float types, by the name of their `ml_dtypes` type."""


@dataclass(frozen=True)
class _NarrowFloats:
    """The dtypes of `_NARROW_FLOATS`, by MLIR name and the other way round."""

    by_name: dict[str, np.dtype[Any]]
    names: dict[np.dtype[Any], str]


@cache
def _narrow_floats() -> _NarrowFloats:
    """
    `ml_dtypes` takes most of a second to import: only a kernel with one of
    `_NARROW_FLOATS` imports it.
    """
    import ml_dtypes  # noqa: PLC0415

    by_name = {
        name: np.dtype(getattr(ml_dtypes, attribute))
        for name, attribute in _NARROW_FLOATS.items()
    }
    return _NarrowFloats(by_name, {dtype: name for name, dtype in by_name.items()})


def _narrow_float_names() -> dict[np.dtype[Any], str]:
    """
    The MLIR names of the narrow float dtypes; none before `ml_dtypes` is
    imported, when no array can have one.
    """
    return _narrow_floats().names if "ml_dtypes" in sys.modules else {}


_INTEGER_DTYPES: dict[Attribute, np.dtype[Any]] = {
    IntegerType(1): np.dtype(np.bool_),
    IntegerType(8): np.dtype(np.int8),
    IntegerType(16): np.dtype(np.int16),
    IntegerType(32): np.dtype(np.int32),
    IntegerType(64): np.dtype(np.int64),
}
"""Signless integers are two's complement, read as signed (i1 as a bool)."""

F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)
BOOL = np.dtype(np.bool_)
_NUMPY_FLOAT_NAMES = {dtype: name for name, dtype in _NUMPY_FLOATS.items()}
_ELEMENT_TYPE_NAMES = _NUMPY_FLOAT_NAMES | {
    dtype: str(typ) for typ, dtype in _INTEGER_DTYPES.items()
}


def numpy_dtype(typ: Attribute) -> np.dtype[Any]:
    """The numpy dtype holding values of a signless integer, `index` or float type."""
    if isinstance(typ, IndexType):
        return I64
    if typ in _INTEGER_DTYPES:
        return _INTEGER_DTYPES[typ]
    if isinstance(typ, AnyFloat):
        if typ.name in _NUMPY_FLOATS:
            return _NUMPY_FLOATS[typ.name]
        if typ.name in _NARROW_FLOATS:
            return _narrow_floats().by_name[typ.name]
    raise InterpretationError(f"type {typ} has no numpy equivalent")


def shaped_type_name(array: Array) -> str:
    """The shape and MLIR element type of `array`, as in `16x64xbf16` (`f32` if 0-d)."""
    element = _ELEMENT_TYPE_NAMES.get(array.dtype) or _narrow_float_names().get(
        array.dtype, array.dtype.name
    )
    return "x".join([*(str(dim) for dim in array.shape), element])


def is_float(dtype: np.dtype[Any]) -> bool:
    """Whether `dtype` is one of the float dtypes (`ml_dtypes` ones are not kind 'f')."""
    return dtype in _NUMPY_FLOAT_NAMES or dtype in _narrow_float_names()


def compute_dtype(dtype: np.dtype[Any]) -> np.dtype[Any]:
    """Where elementwise math on `dtype` happens: f32 for floats up to f32."""
    if not is_float(dtype):
        return dtype
    return F64 if dtype == F64 else F32


def convert(array: Array, dtype: np.dtype[Any]) -> Array:
    """
    `array` converted to `dtype` (the `pypto.tile.cast` rule, also used by the
    scalar `arith` casts): floats round to nearest even (numpy / ml_dtypes
    `astype`), integers become floats through f64, floats become integers by
    truncation toward zero saturating at the type's range (NaN becomes 0),
    integers wrap, and i1 is `x != 0` one way and 0 / 1 the other way.
    """
    source = array.dtype
    if dtype == BOOL:
        return array != 0
    if is_float(dtype) and not is_float(source) and source != BOOL:
        return array.astype(F64).astype(dtype)
    if dtype.kind in "iu" and is_float(source):
        return _saturate_to_int(array, dtype)
    return array.astype(dtype)


def _saturate_to_int(array: Array, dtype: np.dtype[Any]) -> Array:
    info = np.iinfo(dtype)
    truncated = np.trunc(array.astype(F64))
    # float(info.max) can round up (2**63 for i64): compare against 2**bits instead.
    too_big = truncated >= float(info.max) + 1
    too_small = truncated < info.min
    nan = np.isnan(truncated)
    result = np.where(too_big | too_small | nan, 0, truncated).astype(dtype)
    result[too_big] = info.max
    result[too_small] = info.min
    return result
