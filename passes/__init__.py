"""
The pypto-dialect passes: `lower-pipeline-to-slots`, `lower-pipeline-loops`,
`canonicalize-io-order`, and `pipeline-report` (prints the modelled schedule
of pipeline loops).

`__all__` is what an embedder uses: the pass classes, `IOOrder` (the
orders of `canonicalize-io-order`) and `get_all_passes` (the passes by
name, for xDSL's registries). Each is imported when first used, so
importing the package stays cheap.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from xdsl.passes import ModulePass

from pypto_dialect.lazy import lazy_names

if TYPE_CHECKING:
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass, IOOrder
    from passes.lower_pipeline_loops import LowerPipelineLoopsPass
    from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
    from passes.pipeline_report import PipelineReportPass

__all__ = [
    "CanonicalizeIOOrderPass",
    "IOOrder",
    "LowerPipelineLoopsPass",
    "LowerPipelineToSlotsPass",
    "PipelineReportPass",
    "get_all_passes",
]

_HOMES = {
    "CanonicalizeIOOrderPass": "passes.canonicalize_io_order",
    "IOOrder": "passes.canonicalize_io_order",
    "LowerPipelineLoopsPass": "passes.lower_pipeline_loops",
    "LowerPipelineToSlotsPass": "passes.lower_pipeline_to_slots",
    "PipelineReportPass": "passes.pipeline_report",
}
"""The module each class of `__all__` comes from."""


__getattr__ = lazy_names(__name__, _HOMES)


def _lower_pipeline_to_slots() -> type[ModulePass]:
    from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass

    return LowerPipelineToSlotsPass


def _lower_pipeline_loops() -> type[ModulePass]:
    from passes.lower_pipeline_loops import LowerPipelineLoopsPass

    return LowerPipelineLoopsPass


def _canonicalize_io_order() -> type[ModulePass]:
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass

    return CanonicalizeIOOrderPass


def _pipeline_report() -> type[ModulePass]:
    from passes.pipeline_report import PipelineReportPass

    return PipelineReportPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Our passes by name; a factory imports its pass only when called."""
    return {
        "lower-pipeline-to-slots": _lower_pipeline_to_slots,
        "lower-pipeline-loops": _lower_pipeline_loops,
        "canonicalize-io-order": _canonicalize_io_order,
        "pipeline-report": _pipeline_report,
    }
