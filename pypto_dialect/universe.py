"""
The `xdsl.universe` entry point: makes `xdsl-opt` know the `pypto` dialect and
our passes. Lazy factories only, so importing this module stays cheap.
"""

from xdsl.ir import Dialect
from xdsl.passes import ModulePass
from xdsl.universe import Universe


def get_pypto_dialect() -> Dialect:
    from pypto_dialect.dialect import PyPTO

    return PyPTO


def get_lower_pipeline_loops() -> type[ModulePass]:
    from passes.lower_pipeline_loops import LowerPipelineLoopsPass

    return LowerPipelineLoopsPass


def get_canonicalize_io_order() -> type[ModulePass]:
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass

    return CanonicalizeIOOrderPass


PYPTO_UNIVERSE = Universe(
    all_dialects={"pypto": get_pypto_dialect},
    all_passes={
        "lower-pipeline-loops": get_lower_pipeline_loops,
        "canonicalize-io-order": get_canonicalize_io_order,
    },
)
