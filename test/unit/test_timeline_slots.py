"""
The schedule model of tiles bound to declared allocations
(`passes/schedule/timeline.py`): a binding of the tile its producer
computes costs nothing and waits for nothing; a rotation through F slots
waits for the slot's readers F iterations back; a constant slot is one
buffer; the allocations count all their slots in the peak bytes.

The kernel: a load of 4096 x f32 (16 KiB), a slow exp (the slot's reader)
and a row sum stored, with every engine free but MTE2 (64 bytes per cycle:
the load takes 256 cycles) and VECTOR (16 bytes per cycle: the exp takes
1024, the row sum 1024).
"""

from __future__ import annotations

import json

from xdsl.dialects import arith, scf

from passes.analysis.slots import slot_period
from passes.schedule.engines import CostModel, Engine, parse_costs
from passes.schedule.timeline import LoopModel
from pypto_dialect.allocation import BindOp
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.tile import ExpOp, LoadOp
from pypto_dialect.types import MemorySpace
from pypto_dialect.walks import walk_ops

TILE = "!pypto.tile<64x64xf32, vec>"


def costs() -> CostModel:
    engines = {str(engine): {"latency": 0, "bandwidth": 1 << 20} for engine in Engine}
    engines[str(Engine.MTE2)] = {"latency": 0, "bandwidth": 64}
    engines[str(Engine.VECTOR)] = {"latency": 0, "bandwidth": 16}
    table = {
        "queue_depth": 8,
        "sync_latency": 0,
        "engines": engines,
        "capacities": dict.fromkeys(map(str, MemorySpace), 1 << 20),
    }
    return parse_costs(json.dumps(table), "slots")


def kernel(slot: str, slots: int = 2) -> str:
    return f"""
func.func @k(%x: !pypto.tensor<1024x64xf32>, %out: !pypto.tensor<1024x1xf32>) {{
  %pipe = pypto.alloc "pipe" slots {slots} : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %cs = arith.constant {slots} : index
  scf.for %i = %c0 to %c16 step %c1 {{
    %rot = arith.remsi %i, %cs : index
    %row = arith.muli %i, %c64 : index
    %l = pypto.tile.load %x[%row, %c0] : !pypto.tensor<1024x64xf32> -> {TILE}
    %t = pypto.bind %l to %pipe[{slot}] : {TILE}
    %e = pypto.tile.exp %t : {TILE}
    %s = pypto.tile.row_sum %e : {TILE} -> !pypto.tile<64x1xf32, vec>
    pypto.tile.store %s, %out[%row, %c0] : !pypto.tile<64x1xf32, vec>, !pypto.tensor<1024x1xf32>
  }}
  func.return
}}
"""


def prepare(text: str) -> tuple[LoopModel, dict[type, int]]:
    """The model of the loop, and the step of each op class."""
    module = parse_module(pypto_context(), text, "k.mlir")
    module.verify()
    loop = next(op for op in walk_ops(module) if isinstance(op, scf.ForOp))
    model = LoopModel.prepare(loop, costs())
    return model, {type(step.op): index for index, step in enumerate(model.steps)}


def test_a_binding_of_its_producers_tile_is_free():
    model, index = prepare(kernel("%rot"))
    binding = model.steps[index[BindOp]]
    assert binding.cost.duration == 0.0
    assert (binding.same, binding.previous, binding.earlier) == ((), (), ())
    exp = model.steps[index[ExpOp]]
    assert index[LoadOp] in [source for source, _ in exp.same], "waits for the load"
    assert index[BindOp] not in [source for source, _ in exp.same]


def test_a_rotation_waits_for_the_readers_f_iterations_back():
    for slots in (2, 3):
        model, index = prepare(kernel("%rot", slots))
        load = model.steps[index[LoadOp]]
        assert [(s, back) for s, _, back in load.earlier] == [(index[ExpOp], slots)]
        assert index[ExpOp] not in [source for source, _ in load.previous]
        timeline = model.simulate(min_iterations=8)
        for n in range(slots, len(timeline.starts)):
            assert (
                timeline.starts[n][index[LoadOp]]
                >= timeline.ends[n - slots][index[ExpOp]]
            )
        # The load runs ahead of the exp by the slots: VECTOR-bound. A tile is
        # 64 x 64 f32 = 16,384 bytes; at VECTOR's 16 bytes a cycle (`costs`),
        # exp 1,024 and row_sum 1,024: 2,048 (the load, at 64, takes 256).
        assert timeline.time_per_iteration == 2048.0


def test_a_constant_slot_is_one_buffer():
    model, index = prepare(kernel("%c1"))
    load = model.steps[index[LoadOp]]
    assert load.earlier == ()
    assert index[ExpOp] in [source for source, _ in load.previous]
    timeline = model.simulate(min_iterations=8)
    for n in range(1, len(timeline.starts)):
        assert timeline.starts[n][index[LoadOp]] >= timeline.ends[n - 1][index[ExpOp]]


def test_the_allocation_counts_all_its_slots():
    """
    The 2 slots of 16 KiB pinned, plus one buffer each of the exp (16 KiB),
    the row sum's scratch (16 KiB) and result (64 rows of 32 bytes).
    """
    for slot in ("%rot", "%c1"):
        model, _ = prepare(kernel(slot))
        timeline = model.simulate(min_iterations=8)
        assert timeline.peak_bytes[MemorySpace.VEC] == 2 * 16384 + 2 * 16384 + 2048


def test_slot_periods():
    module = parse_module(pypto_context(), kernel("%rot", 4), "k.mlir")
    loop = next(op for op in walk_ops(module) if isinstance(op, scf.ForOp))
    binding = next(op for op in walk_ops(module) if isinstance(op, BindOp))
    induction = loop.body.block.args[0]
    assert slot_period(binding, induction, loop.step) == 4
    c16 = next(
        op.result
        for op in walk_ops(module)
        if isinstance(op, arith.ConstantOp) and op.result.name_hint == "c16"
    )
    assert slot_period(binding, induction, c16) == 1, "16 % 4 == 0: the same slot"
    assert slot_period(binding, loop.lb, loop.step) == 1, "not the loop's variable"
