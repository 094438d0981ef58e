"""
The timeline simulation (`passes/schedule/timeline.py`) on hand-computed cases.

The kernel: one load, one add and one store per iteration, 8 iterations of
a 128 x f32 tile (512 bytes), with `UNIT_COSTS`: scalar ops are free, a load
takes L = 512 / 128 = 4 cycles (MTE2), the add V = 512 / 256 = 2 (VECTOR),
the store S = 1 + 512 / 256 = 3 (MTE3). The address (`arith.muli`) is free.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from helpers import add_one
from ir_integrity import check_integrity
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp

from passes.analysis.iterations import Loop
from passes.schedule.engines import (
    Core,
    CostModel,
    Engine,
    EngineCost,
    Unit,
    default_costs,
    parse_costs,
)
from passes.schedule.lowered import DYNAMIC_TRIP, Whole
from passes.schedule.report import LoopReport, pass_pipeline, run_report
from passes.schedule.timeline import MAX_TOTAL_ITERATIONS, LoopModel, Timeline
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.types import MemorySpace
from pypto_dialect.walks import walk_ops

CTX = pypto_context()
EXAMPLES = Path(__file__).parents[2] / "examples"
BOTH = "lower-pipeline-loops,canonicalize-io-order"
LOWER = "lower-pipeline-loops"


def unit_costs(queue_depth: int = 8, sync_latency: float = 0) -> CostModel:
    engines = {engine: {"latency": 0, "bandwidth": 1} for engine in Engine}
    engines |= {
        Engine.MTE2: {"latency": 0, "bandwidth": 128},
        Engine.VECTOR: {"latency": 0, "bandwidth": 256},
        Engine.MTE3: {"latency": 1, "bandwidth": 256},
    }
    table = {
        "queue_depth": queue_depth,
        "sync_latency": sync_latency,
        "engines": {str(engine): cost for engine, cost in engines.items()},
        "capacities": dict.fromkeys(map(str, MemorySpace), 1 << 20),
    }
    return parse_costs(json.dumps(table), "unit")


def report(text: str, passes: str | None, model: CostModel) -> LoopReport:
    module = parse_module(CTX, text)
    pipeline = None if passes is None else pass_pipeline(passes)
    (loop,) = run_report(CTX, module, model, pipeline)
    return loop


def starts(timeline: Timeline, iteration: int) -> list[float]:
    """The start times of the tile ops of one iteration, in program order."""
    return [
        interval.start
        for interval in timeline.intervals(iteration + 1)
        if interval.iteration == iteration
        and timeline.steps[interval.step].op.name.startswith("pypto.tile")
    ]


def test_single_buffer_runs_load_then_add():
    # One buffer for %t: the next load overwrites it, so it waits for the add
    # that reads it. Iteration n: load [6n, 6n+4], add [6n+4, 6n+6], store
    # [6n+6, 6n+9] (the next add starts at 6n+10, after the store read %y).
    # Time per iteration L + V = 6; the busiest engine is MTE2 (L = 4).
    loop = report(add_one(4), None, unit_costs())
    timeline = loop.before.timeline
    assert starts(timeline, 0) == [0, 4, 6]
    assert starts(timeline, 1) == [6, 10, 12]
    assert timeline.converged
    assert timeline.time_per_iteration == 6
    # One core (the vector one): units without a core name.
    assert timeline.busy == {
        Unit(None, Engine.SCALAR): 0,
        Unit(None, Engine.MTE2): 4,
        Unit(None, Engine.VECTOR): 2,
        Unit(None, Engine.MTE3): 3,
    }
    assert timeline.bound == 4
    assert timeline.bottleneck == Unit(None, Engine.MTE2)
    assert timeline.efficiency == pytest.approx(4 / 6)
    # %t [6n, 6n+6] and %y [6n+4, 6n+9] overlap, %y and the next %t too:
    # two tiles of 512 bytes at most.
    assert timeline.peak_bytes == {MemorySpace.VEC: 1024}


@pytest.mark.parametrize(
    ("stages", "time", "peak"),
    [
        # F = 1: nothing to lower or reorder; the same as the single buffer.
        (1, 6, 1024),
        # F = 2: body (scalars) load0 load1 add0 store0 add1 store1. Iteration
        # 0: loads [0,4] [4,8], add0 [4,6], store0 [6,9], add1 [8,10], store1
        # [10,13]. Iteration 1: load0 waits for MTE2 (8) and for add0 of
        # iteration 0 (6): [8,12]; load1 [12,16]; add0 [12,14]; store0
        # [14,17]; add1 [16,18]; store1 [18,21]: everything 8 later, so 8 per
        # lowered iteration, 4 per original one: the MTE2 bound. Each of the
        # two stages (pools) holds its %t and %y at once: 2 x 1024 bytes.
        (2, 4, 2048),
        # F = 4: loads [0,4] .. [12,16], add_k [4k+4, 4k+6], store_k
        # [4k+6, 4k+9]; iteration 1 is 16 later (load0 at 16, after load3 of
        # iteration 0): 16 / 4 = 4 per original iteration; 4 pools of 1024.
        (4, 4, 4096),
    ],
)
def test_lowered_and_reordered(stages: int, time: float, peak: int):
    loop = report(add_one(stages), BOTH, unit_costs())
    assert loop.after is not None
    assert loop.after.copies == stages
    assert loop.after.timeline.converged
    assert loop.after.time == time
    assert loop.after.bound == 4
    assert loop.after.timeline.peak_bytes == {MemorySpace.VEC: peak}
    assert loop.before.time == 6
    assert loop.speedup == pytest.approx(6 / time)


def test_two_stages_schedule():
    # The start times derived in `test_lowered_and_reordered` for F = 2.
    after = report(add_one(2), BOTH, unit_costs()).after
    assert after is not None
    assert starts(after.timeline, 0) == [0, 4, 4, 6, 8, 10]
    assert starts(after.timeline, 1) == [8, 12, 12, 14, 16, 18]
    assert after.timeline.time_per_iteration == 8


def test_in_order_dispatch_needs_the_reordering():
    # Queue depth 0: an op is dispatched when it starts, in program order.
    # Lowered only (load0 add0 store0 load1 add1 store1): load1 is dispatched
    # after store0 started (6): load0 [0,4], add0 [4,6], store0 [6,9], load1
    # [6,10], add1 [10,12], store1 [12,15]; iteration 1 starts at 12 (12 per
    # lowered iteration, 6 per original: no better than one buffer).
    # Reordered (load0 load1 add0 store0 add1 store1): load0 [0,4], load1
    # [4,8], add0 [4,6], store0 [6,9], add1 [8,10], store1 [10,13]; the next
    # iteration's scalars wait for store1's dispatch at 10, load0 [10,14]:
    # 10 per lowered iteration, 5 per original one.
    model = unit_costs(queue_depth=0)
    lowered = report(add_one(2), LOWER, model)
    reordered = report(add_one(2), BOTH, model)
    assert lowered.before.time == 6
    assert lowered.after is not None and lowered.after.time == 6
    assert reordered.after is not None and reordered.after.time == 5
    assert starts(reordered.after.timeline, 1) == [10, 14, 14, 16, 18, 20]


def test_sync_latency_delays_cross_engine_dependences():
    # Sync 1 on every edge between two engines: load [0,4], add [5,7], store
    # [8,11]; the next load waits for the add (7 + 1): [8,12]; add [13,15]:
    # 8 per iteration (L + V + 2 syncs).
    timeline = report(add_one(1), None, unit_costs(sync_latency=1)).before.timeline
    assert starts(timeline, 0) == [0, 5, 8]
    assert starts(timeline, 1) == [8, 13, 16]
    assert timeline.time_per_iteration == 8


def test_a_model_under_another_table_is_the_one_prepared_for_it():
    """`with_model` keeps the ops and dependences, and builds the rest anew."""
    module = parse_module(CTX, add_one(4))
    (loop,) = (op for op in walk_ops(module) if isinstance(op, PipelineOp))
    first, second = unit_costs(), unit_costs(queue_depth=2, sync_latency=1)
    moved = LoopModel.prepare(loop, first).with_model(second)
    fresh = LoopModel.prepare(loop, second)
    assert moved.steps == fresh.steps and moved.edges == fresh.edges
    assert moved.simulate().time_per_iteration == fresh.simulate().time_per_iteration
    assert moved.with_model(second) is moved


def test_loads_first_overfills_a_shallow_queue():
    # A finding about `canonicalize-io-order` (docs/report.md): with queue
    # depth 2 and 8 stages, all 8 loads come first, the dispatcher stalls
    # until load 5 starts before it can dispatch add0, and the engines stop
    # overlapping; the copies as lowered interleave and stay at the bound.
    model = unit_costs(queue_depth=2)
    lowered = report(add_one(8), LOWER, model).after
    reordered = report(add_one(8), BOTH, model).after
    assert lowered is not None and reordered is not None
    assert lowered.time == lowered.bound == 4
    assert reordered.time > lowered.time


def test_accumulator_is_updated_in_place():
    # matmul_acc writes into its accumulator: one acc tile, before and after
    # (the accumulator is not double-buffered); the other tiles double.
    text = (EXAMPLES / "matmul_k_loop.mlir").read_text()
    loop = report(text, BOTH, unit_costs())
    assert loop.after is not None
    before, after = loop.before.timeline.peak_bytes, loop.after.timeline.peak_bytes
    assert before[MemorySpace.ACC] == after[MemorySpace.ACC] == 16 * 256 * 4
    assert before[MemorySpace.RIGHT] == 64 * 256 * 2
    assert after[MemorySpace.RIGHT] == 2 * 64 * 256 * 2


def test_over_capacity_is_reported():
    model = dataclasses.replace(
        unit_costs(), capacities=dict.fromkeys(MemorySpace, 2048)
    )
    loop = report(add_one(4), BOTH, model)
    assert loop.after is not None
    assert loop.after.timeline.over_capacity == {MemorySpace.VEC: 4096}
    assert loop.warnings() == [
        "after the passes, vec needs 4096 bytes, more than its capacity of 2048"
    ]


def test_simulation_leaves_the_module_unchanged():
    module = parse_module(CTX, add_one(2))
    before = str(module)
    run_report(CTX, module, unit_costs(), pass_pipeline(BOTH))
    assert str(module) == before
    check_integrity(module)


def test_empty_module_has_no_loops():
    assert run_report(CTX, ModuleOp([]), unit_costs()) == []


# --------------------------------------------------------------------------- #
# The scalar unit, cores, flags and event ids (docs/report.md, the model)
# --------------------------------------------------------------------------- #


def kernel(arguments: str, loop: str, result: str = "") -> str:
    """A function of `arguments` whose body is the constants below, then `loop`."""
    returned = f"func.return %r : {result}" if result else "func.return"
    signature = f"({arguments})" + (f" -> {result}" if result else "")
    return f"""
func.func @k{signature} {{
  %c0 = arith.constant 0 : index  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32  %one = arith.constant 1.0 : f32
  {loop}
  {returned}
}}
"""


READ_KERNEL = kernel(
    "%x: !pypto.tensor<1024xf32>, %z: !pypto.tensor<1024xf32>",
    """%r = pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 iter_args(%acc = %zero) -> (f32) {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %e = pypto.tile.read %t[%c0] : !pypto.tile<128xf32, vec>
    %u = pypto.tile.load %z[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %s = arith.addf %acc, %e : f32
    pypto.yield %s : f32
  }""",
    "f32",
)


def test_read_runs_on_the_scalar_unit_and_holds_the_issue():
    # Sync 1; the read costs 4 bytes at 1 byte per cycle on SCALAR. It waits
    # for %t behind a flag (4 + 1) and holds the issue until it ends (9), so
    # the load of %u, queued behind nothing, starts only at 9: loads [0, 4]
    # and [9, 13], read [5, 9]. Next iteration: the load of %t waits for
    # MTE2 (13) and for the read of its buffer (9 + 1): [13, 17], read
    # [18, 22], load [22, 26]; 13 per iteration (4 + 1 + 4 + 4).
    loop = report(READ_KERNEL, None, unit_costs(sync_latency=1))
    timeline = loop.before.timeline
    assert starts(timeline, 0) == [0, 5, 9]
    assert starts(timeline, 1) == [13, 18, 22]
    assert timeline.time_per_iteration == 13
    assert Unit(None, Engine.VECTOR) not in timeline.busy
    assert timeline.busy[Unit(None, Engine.SCALAR)] == 4


NESTED_LOOP = kernel(
    "%x: !pypto.tensor<1024xf32>, %y: !pypto.tensor<1024xf32>",
    """pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    %off = arith.muli %i, %c128 : index
    %u = pypto.tile.load %y[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    scf.for %j = %c0 to %c8 step %c1 {
      %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
      scf.yield
    }
  }""",
)


def test_an_op_with_regions_holds_the_issue_on_the_scalar_unit():
    # The inner loop runs its load 8 times (8 x 4 cycles) and holds the
    # issue until it ends, so the scalar unit, free for every scalar op, is
    # busy 32 cycles per iteration (MTE2: 4 + 32 = 36). That is a bound no
    # order beats: 36 here, the loop's time.
    timeline = report(NESTED_LOOP, None, unit_costs()).before.timeline
    assert timeline.busy[Unit(None, Engine.SCALAR)] == 32
    assert timeline.busy[Unit(None, Engine.MTE2)] == 36
    assert timeline.time_per_iteration == 36


TWO_CORES = kernel(
    "%x: !pypto.tensor<128x32xf32>, %y: !pypto.tensor<128x32xf32>",
    """pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    %off = arith.muli %i, %c16 : index
    %a = pypto.tile.load %x[%off, %c0] : !pypto.tensor<128x32xf32> -> !pypto.tile<16x32xf32, mat>
    %b = pypto.tile.load %y[%off, %c0] : !pypto.tensor<128x32xf32> -> !pypto.tile<16x32xf32, vec>
    %l = pypto.tile.extract %a[%c0, %c0] : !pypto.tile<16x32xf32, mat> -> !pypto.tile<16x32xf32, left>
    %d = pypto.tile.adds %b, %one : !pypto.tile<16x32xf32, vec>, f32
  }""",
)


def test_cube_and_vector_sides_are_two_cores():
    # The load to `mat` and the extract run on the cube core (AIC), the load
    # to `vec` and the add on the vector core (AIV), each with its own MTE2
    # and its own issue: both loads start at 0 (one MTE2 would run them one
    # after the other). Loads 2048 / 128 = 16, extract 2048 / 128 = 16, add
    # 2048 / 256 = 8; each next load waits for the reader of its buffer:
    # AIC repeats every 16 + 16 = 32, AIV every 16 + 8 = 24; the cores do
    # not wait for each other, so the loop takes the slower one's 32.
    model = unit_costs()
    model = dataclasses.replace(
        model, engines={**model.engines, Engine.MTE1: EngineCost(0, 128)}
    )
    timeline = report(TWO_CORES, None, model).before.timeline
    assert timeline.cores == (Core.AIC, Core.AIV)
    assert starts(timeline, 0) == [0, 0, 16, 16]
    assert starts(timeline, 1) == [32, 24, 48, 40]
    assert timeline.converged
    assert timeline.time_per_iteration == 32
    aic_mte2, aiv_mte2 = Unit(Core.AIC, Engine.MTE2), Unit(Core.AIV, Engine.MTE2)
    assert timeline.busy[aic_mte2] == timeline.busy[aiv_mte2] == 16
    assert timeline.busy[Unit(Core.AIC, Engine.SCALAR)] == 0  # its copy of muli
    assert timeline.label(aic_mte2) == "AIC MTE2"


def test_a_flag_beyond_the_event_budget_stalls_its_source():
    # Four stages, reordered (loads first); an add takes 512 / 64 = 8.
    # Iteration 0: loads at 0, 4, 8, 12; adds at 4, 12, 20, 28. Iteration 1:
    # load 0 waits for the add that read its buffer (12) and MTE2 (16):
    # [16, 20]. With one event id per pair, its flag (the 5th from MTE2 to
    # VECTOR) needs the 4th to have been waited for: add 3 started at 28, so
    # MTE2 is held until 28 and load 1 starts at 28, not 20.
    def after(budget: int) -> Timeline:
        model = unit_costs(queue_depth=8)
        model = dataclasses.replace(
            model,
            events_per_pair=budget,
            engines={**model.engines, Engine.VECTOR: EngineCost(0, 64)},
        )
        figures = report(add_one(4), BOTH, model).after
        assert figures is not None
        return figures.timeline

    loads = slice(0, 4)
    assert starts(after(8), 0)[loads] == [0, 4, 8, 12]
    assert starts(after(8), 1)[loads] == [16, 20, 28, 36]
    assert starts(after(1), 1)[loads] == [16, 28, 32, 36]
    assert after(1).time_per_iteration == after(8).time_per_iteration == 32


# --------------------------------------------------------------------------- #
# LoopModel: other orders, whole loops
# --------------------------------------------------------------------------- #


def lowered_loop(text: str, passes: str) -> Loop:
    module = parse_module(CTX, text)
    pass_pipeline(passes).apply(CTX, module)
    return next(op for op in walk_ops(module) if isinstance(op, scf.ForOp | PipelineOp))


def test_loop_model_simulates_another_order_without_changing_the_ir():
    # `test_in_order_dispatch_needs_the_reordering`: the loop lowered only,
    # simulated in the reordered order (loads first), runs as the reordered
    # loop does: 10 per lowered iteration instead of 12.
    loop = lowered_loop(add_one(2), LOWER)
    text = str(loop)
    model = LoopModel.prepare(loop, unit_costs(queue_depth=0))
    assert model.simulate().time_per_iteration == 12
    # Scalars, then loads, then the rest: canonicalize-io-order's order.
    rank = {"arith": 0, "pypto.tile.load": 1}
    order = sorted(
        model.ops, key=lambda op: rank.get(op.name, rank.get(op.dialect_name(), 2))
    )
    assert model.simulate(order).time_per_iteration == 10
    assert str(loop) == text
    with pytest.raises(ValueError, match="not a permutation"):
        model.simulate(order[1:])
    adds = next(op for op in order if op.name == "pypto.tile.adds")
    with pytest.raises(
        ValueError, match=r"puts pypto\.tile\.adds before pypto\.tile\.load"
    ):
        model.simulate([adds, *(op for op in order if op is not adds)])


def test_total_time_includes_warm_up_and_drain():
    # One buffer: iteration n runs from 6n; the last store ends 6 x 7 + 9.
    loop = report(add_one(1), None, unit_costs()).before.timeline.loop
    assert loop is not None
    model = LoopModel.prepare(loop, unit_costs())
    assert model.total_time(8) == 51
    assert model.total_time(1) == 9
    assert model.total_time(0) == 0
    with pytest.raises(ValueError, match="cannot simulate more than"):
        model.total_time(MAX_TOTAL_ITERATIONS + 1)


def test_whole_loop_counts_the_remainder_copies():
    # 8 iterations, 3 stages: two lowered iterations (6 original ones), then
    # 2 flattened copies. Main loop: loads [0, 4], [4, 8], [8, 12], store k
    # at 4k + 6; the second iteration 12 later, its last store ends at
    # 12 + 14 + 3 = 29. Remainder (not reordered: outside the pipeline):
    # load [0, 4], add [4, 6], store [6, 9], load [4, 8], add [8, 10], store
    # [10, 13]: 13. Whole loop: 29 + 13 = 42.
    loop = report(add_one(3), BOTH, unit_costs())
    assert loop.after is not None
    assert loop.after.whole == Whole(8, 42)
    assert loop.after.whole_efficiency == pytest.approx(8 * 4 / 42)
    assert loop.before.whole == Whole(8, 51)


def test_whole_loop_of_a_dynamic_trip_count_takes_the_cascade_branch():
    # The same loop with a dynamic upper bound and trip 8: the main loop
    # runs twice and the `rem == 2` branch of the cascade holds the copies.
    text = add_one(3).replace(
        "%out: !pypto.tensor<1024xf32>)", "%out: !pypto.tensor<1024xf32>, %n: index)"
    )
    text = text.replace("to %c8 step", "to %n step")
    module = parse_module(CTX, text)
    (unknown,) = run_report(CTX, module, unit_costs(), pass_pipeline(BOTH))
    assert unknown.after is not None
    assert unknown.after.whole == Whole(None, None, DYNAMIC_TRIP)
    (known,) = run_report(CTX, module, unit_costs(), pass_pipeline(BOTH), trip=8)
    assert known.after is not None and known.after.whole == Whole(8, 42)
    assert known.before.whole == Whole(8, 51)


def row_sum(scratch: str) -> str:
    tile = "!pypto.tile<16x64xf32, vec>"
    operands, types = (
        ("%t", tile) if not scratch else (f"%t, {scratch}", f"{tile}, {tile}")
    )
    return f"""
func.func @row_sum(%x: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x1xf32>) {{
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c16 stages 1 {{
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<64x64xf32> -> {tile}
    %s = pypto.tile.row_sum {operands} : {types} -> !pypto.tile<16x1xf32, vec>
    pypto.tile.store %s, %out[%i, %c0] : !pypto.tile<16x1xf32, vec>, !pypto.tensor<64x1xf32>
  }}
  func.return
}}
"""


def test_a_row_reduction_without_a_scratch_tile_needs_one_while_it_runs():
    # The scratch PyPTO allocates (the source's 4096 bytes) lives while the
    # row_sum runs, next to its source and result (16 rows of 32 bytes: 512
    # padded, docs/report.md); a scratch operand (here the source itself) is
    # no extra buffer.
    peaks = [
        report(row_sum(scratch), None, unit_costs()).before.timeline.peak_bytes
        for scratch in ("", "%t")
    ]
    assert peaks == [
        {MemorySpace.VEC: 4096 + 4096 + 512},
        {MemorySpace.VEC: 4096 + 512},
    ]


CHANNELS_ONLY_INSIDE = """
func.func @k(%x: !pypto.tensor<1024x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
    pypto.tile.tpush_to_aiv %t : !pypto.tile<4x8xf32, vec>
    %q = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>
    %ub = arith.addi %i, %c1 : index
    pypto.pipeline %j = %i to %ub step %c1 stages 1 {
      %cond = arith.cmpi slt, %j, %c1 : index
      scf.if %cond {
        pypto.tile.tpush_to_aiv %t : !pypto.tile<4x8xf32, vec>
        %q2 = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>
      }
    }
  }
  func.return
}
"""


def test_a_nested_loop_of_channels_only_is_issued_by_both_cores():
    # Found by a campaign: the inner loop's units are core-less (scalar ops and
    # the AIC-to-AIV channel), which the placement of an op with regions did
    # not expect. The cores that issue its push and pop issue it.
    module = parse_module(CTX, CHANNELS_ONLY_INSIDE)
    outer, inner = [op for op in walk_ops(module) if isinstance(op, PipelineOp)]
    model = LoopModel.prepare(outer, default_costs())
    assert model.cores == (Core.AIC, Core.AIV)
    (step,) = model.steps_of[inner]
    assert model.steps[step].cores == (Core.AIC, Core.AIV)
    assert model.simulate().time_per_iteration > 0
