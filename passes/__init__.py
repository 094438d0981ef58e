"""
The pypto-dialect passes: `skew-cross-core-pipeline`, `lower-pipeline-to-slots`,
`lower-pipeline-loops`, `canonicalize-io-order`, and `pipeline-report` (prints
the modelled schedule of pipeline loops).
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def _skew_cross_core_pipeline() -> type[ModulePass]:
    from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass

    return SkewCrossCorePipelinePass


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
        "skew-cross-core-pipeline": _skew_cross_core_pipeline,
        "lower-pipeline-to-slots": _lower_pipeline_to_slots,
        "lower-pipeline-loops": _lower_pipeline_loops,
        "canonicalize-io-order": _canonicalize_io_order,
        "pipeline-report": _pipeline_report,
    }
