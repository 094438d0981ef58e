"""
The whole-loop time (`LoopModel.total_time`): simulated until the schedule
is periodic, the rest extrapolated, it equals the simulation of every
iteration (the same float: the default table's times are dyadic, so both
are exact) for every count around the point where the period is found and
for a few hundred iterations; at queue depths 1, 2 and 4; on the loops of
generated kernels before the passes, after `lower-pipeline-loops` and
`canonicalize-io-order`, and after `lower-pipeline-to-slots` (the `i % F`
slot rotations), and on the examples. A schedule that never becomes
periodic is simulated to the end, up to `MAX_SIMULATED_ITERATIONS`.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from itertools import accumulate
from pathlib import Path

import pytest
from hypothesis import given, settings
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.schedule import timeline
from passes.schedule.engines import (
    CostModel,
    Engine,
    default_costs,
    default_costs_text,
    parse_costs,
)
from passes.schedule.lowered import loop_figures
from passes.schedule.report import lowered_copy, pass_pipeline
from passes.schedule.timeline import (
    MAX_SIMULATED_ITERATIONS,
    MAX_TOTAL_ITERATIONS,
    LoopModel,
    NotPeriodic,
)
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import walk_ops

CTX = pypto_context()
MODEL = default_costs()
DEPTHS = (1, 2, 4)
LARGE = (100, 257, 300)
"""Counts far beyond where the period is found."""
PIPELINES = (
    "lower-pipeline-loops,canonicalize-io-order",
    "lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order",
)
EXAMPLES = Path(__file__).parents[2] / "examples"
BUDGET = (
    settings(max_examples=40)
    if settings.get_current_profile_name() == "ci"
    else settings()
)


def full_times(model: LoopModel, iterations: int) -> list[float]:
    """The end of the last op of the first n simulated iterations, for n from 0."""
    if iterations == 0:
        return [0.0]
    simulated = model.simulate(min_iterations=iterations, max_iterations=iterations)
    ends = (max(times, default=0.0) for times in simulated.ends)
    return [0.0, *accumulate(ends, max)]


def counts(model: LoopModel) -> list[int]:
    """0 to 3 periods past where `simulate` finds the period, then `LARGE`."""
    steady = model.simulate()
    around = len(steady.starts) + 3 * steady.period + 2
    return [*range(around), *(n for n in LARGE if n >= around)]


def check_total_time(model: LoopModel) -> None:
    wanted = counts(model)
    full = full_times(model, wanted[-1])
    for n in wanted:
        assert model.total_time(n) == full[n], n


def loops(module: ModuleOp) -> Iterator[scf.ForOp | PipelineOp]:
    for op in walk_ops(module):
        if isinstance(op, scf.ForOp | PipelineOp):
            yield op


def kernel_loops(text: str) -> Iterator[scf.ForOp | PipelineOp]:
    """The loops of the kernel, and of its copies after each of `PIPELINES`."""
    module = parse_module(CTX, text)
    yield from loops(module)
    for spec in PIPELINES:
        lowered = lowered_copy(CTX, module, pass_pipeline(spec))
        assert lowered is not None
        yield from loops(lowered[0])


def check_kernel(text: str, model: CostModel = MODEL) -> None:
    for loop in kernel_loops(text):
        for depth in DEPTHS:
            check_total_time(
                LoopModel.prepare(loop, dataclasses.replace(model, queue_depth=depth))
            )


@pytest.mark.slow
@BUDGET
@given(kernels(rotatable=True))
def test_total_time_is_the_full_simulation(kernel: GeneratedKernel):
    check_kernel(kernel.text)


@pytest.mark.parametrize("name", ["add_one", "matmul_k_loop", "row_softmax"])
def test_total_time_of_the_examples(name: str):
    check_kernel((EXAMPLES / f"{name}.mlir").read_text())


def thirds() -> CostModel:
    """The default table with VECTOR at 3 bytes per cycle: times that are not dyadic."""
    table = json.loads(default_costs_text())
    table["engines"][str(Engine.VECTOR)]["bandwidth"]["value"] = 3
    return parse_costs(json.dumps(table), "thirds")


def test_times_in_thirds_agree_within_rounding():
    """
    With durations of n/3 cycles both computations round: the simulation at
    every addition, the extrapolation once. They agree within 1e-9.
    """
    text = (EXAMPLES / "add_one.mlir").read_text()
    for loop in kernel_loops(text):
        model = LoopModel.prepare(loop, thirds())
        full = full_times(model, LARGE[-1])
        for n in counts(model):
            assert model.total_time(n) == pytest.approx(full[n], rel=1e-9, abs=0)


def add_one_model(depth: int = 2) -> LoopModel:
    module = parse_module(CTX, (EXAMPLES / "add_one.mlir").read_text())
    loop = next(loops(module))
    return LoopModel.prepare(loop, dataclasses.replace(MODEL, queue_depth=depth))


def test_huge_counts_are_exact():
    """
    add_one takes 114 cycles per iteration from the second on: the time of
    n = 2^62 + k iterations is that of 300 plus (n - 300) x 114, an integer
    that the float closest to it rounds (the same extrapolation in floats,
    float(n - 1 - m) x 114, is off from k = 287 on); the largest count is
    accepted.
    """
    model = add_one_model()
    assert model.simulate().time_per_iteration == 114
    start = int(model.total_time(300))
    for huge in ((1 << 62), (1 << 62) + 1, (1 << 62) + 300):
        assert model.total_time(huge) == float(start + (huge - 300) * 114)
    assert model.total_time(MAX_TOTAL_ITERATIONS) > 0


def test_without_a_period_every_iteration_is_simulated(
    monkeypatch: pytest.MonkeyPatch,
):
    model = add_one_model()
    full = full_times(model, 40)
    # Looked for in fewer iterations than the least simulated: never found.
    monkeypatch.setattr(timeline, "MAX_ITERATIONS", 4)
    for n in range(41):
        assert model.total_time(n) == full[n]
    with pytest.raises(NotPeriodic, match="not periodic within 4"):
        model.total_time(MAX_SIMULATED_ITERATIONS + 1)
    figures = loop_figures(model, 1, MAX_SIMULATED_ITERATIONS + 1)
    assert figures.whole.time is None
    assert figures.whole.note == (
        f"over {MAX_SIMULATED_ITERATIONS} iterations, not periodic: not simulated"
    )
