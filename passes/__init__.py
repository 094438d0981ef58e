"""
The pypto-dialect passes: `skew-cross-core-pipeline`, `lower-pipeline-to-slots`,
`lower-pipeline-loops`, `canonicalize-io-order`, and `pipeline-report` (prints
the modelled schedule of pipeline loops).

`__all__` is what an embedder uses: the pass classes, `IOOrder` (the
orders of `canonicalize-io-order`) and `get_all_passes` (the passes by
name, for xDSL's registries). Each is imported when first used, so
importing the package stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from importlib import import_module
from typing import TYPE_CHECKING

from xdsl.passes import ModulePass

from pypto_dialect.lazy import lazy_names

if TYPE_CHECKING:
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass, IOOrder
    from passes.lower_pipeline_loops import LowerPipelineLoopsPass
    from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
    from passes.pipeline_report import PipelineReportPass
    from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass

__all__ = [
    "CanonicalizeIOOrderPass",
    "IOOrder",
    "LowerPipelineLoopsPass",
    "LowerPipelineToSlotsPass",
    "PipelineReportPass",
    "SkewCrossCorePipelinePass",
    "get_all_passes",
]

_HOMES = {
    "CanonicalizeIOOrderPass": "passes.canonicalize_io_order",
    "IOOrder": "passes.canonicalize_io_order",
    "LowerPipelineLoopsPass": "passes.lower_pipeline_loops",
    "LowerPipelineToSlotsPass": "passes.lower_pipeline_to_slots",
    "PipelineReportPass": "passes.pipeline_report",
    "SkewCrossCorePipelinePass": "passes.skew_cross_core_pipeline",
}
"""The module each class of `__all__` comes from."""


__getattr__ = lazy_names(__name__, _HOMES)


_PASSES = {
    "skew-cross-core-pipeline": "SkewCrossCorePipelinePass",
    "lower-pipeline-to-slots": "LowerPipelineToSlotsPass",
    "lower-pipeline-loops": "LowerPipelineLoopsPass",
    "canonicalize-io-order": "CanonicalizeIOOrderPass",
    "pipeline-report": "PipelineReportPass",
}
"""Each pass's name and its class in `__all__`, in the order they run."""


def _pass_class(name: str) -> type[ModulePass]:
    pass_class: type[ModulePass] = getattr(import_module(_HOMES[name]), name)
    return pass_class


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes by name; a factory imports its pass only when called."""
    return {name: partial(_pass_class, cls) for name, cls in _PASSES.items()}
