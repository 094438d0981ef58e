"""The `lower-pipeline-to-slots` pass and its policy through the Python API."""

from __future__ import annotations

from contextlib import redirect_stderr
from io import StringIO
from pathlib import Path

import pytest
from helpers import parse, print_ir
from ir_integrity import apply_checked
from xdsl.dialects import scf
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import PassFailedException

from passes import get_all_passes
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass, slot_declines
from passes.schedule.engines import default_costs
from passes.slots_policy import Gate, SlotBudget, check_loop, slot_candidates
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import (
    compare_runs,
    find_kernel,
    kernel_names,
    random_inputs,
    run_kernel,
)
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.tile import LoadOp
from pypto_dialect.types import MemorySpace

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


def rotate(module: ModuleOp, **options: bool | str) -> str:
    """Apply the pass (checked); what `explain` printed."""
    stderr = StringIO()
    with redirect_stderr(stderr):
        apply_checked(LowerPipelineToSlotsPass(**options), pypto_context(), module)  # pyright: ignore[reportArgumentType]
    return stderr.getvalue()


def _kernel(header: str, body: str, *, stages: int = 2) -> str:
    return f"""
func.func @k(%x: !pypto.tensor<16384xf32>, %out: !pypto.tensor<16384xf32>) {{
{header}
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages {stages} {{
{body}
  }}
  func.return
}}
"""


LOAD = "    %t = pypto.tile.load %x[%i] : !pypto.tensor<16384xf32> -> !pypto.tile<{n}xf32, vec>\n"
USE = '    "test.op"(%t) : (!pypto.tile<{n}xf32, vec>) -> ()\n'


def test_registered():
    assert get_all_passes()["lower-pipeline-to-slots"]() is LowerPipelineToSlotsPass


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_examples_keep_their_results(path: Path):
    """Rotated or declined, and then replicated: bit-identical runs."""
    module = parse(path.read_text())
    (entry,) = kernel_names(module)
    inputs = random_inputs(find_kernel(module, entry), 7)
    before = run_kernel(module, entry, inputs)
    rotate(module)
    again = print_ir(module)
    rotate(module)
    assert print_ir(module) == again, "idempotent"
    assert compare_runs(before, run_kernel(module, entry, inputs)) == []


def test_add_one_rotates():
    module = parse((EXAMPLES[0].parent / "add_one.mlir").read_text())
    printed = rotate(module, explain=True)
    assert printed == (
        "lower-pipeline-to-slots: @add_one: pypto.pipeline over %i, stages 4: "
        "1 load(s) rotate through 4 slots each: pypto.tile.load %t\n"
    )
    (declaration,) = [op for op in module.walk() if isinstance(op, AllocOp)]
    assert (declaration.label, declaration.num_slots) == ("pipe_t", 4)
    (binding,) = declaration.bindings()
    assert isinstance(binding.tile.owner, LoadOp)
    assert isinstance(binding.parent_op(), scf.ForOp)
    assert not any(isinstance(op, PipelineOp) for op in module.walk())


def test_one_blocked_load_declines_the_loop():
    module = parse(
        _kernel(
            "",
            LOAD.format(n=64)
            + USE.format(n=64)
            + "    %u = pypto.tile.load %x[%i] : !pypto.tensor<16384xf32> -> !pypto.tile<64xf32, left>\n"
            + '    "test.op"(%u) : (!pypto.tile<64xf32, left>) -> ()\n',
        )
    )
    loop = next(op for op in module.walk() if isinstance(op, PipelineOp))
    decline = slot_candidates(loop)
    assert not isinstance(decline, list)
    assert decline.gate is Gate.SPACE
    assert isinstance(decline.op, LoadOp) and decline.op.result.name_hint == "u"
    rotate(module)
    assert not any(isinstance(op, BindOp | AllocOp) for op in module.walk())


def test_slot_declines_changes_nothing():
    """The declines as the pass decides them, outer loops first, on the input as it is."""
    outer = _kernel("", LOAD.format(n=64) + USE.format(n=64), stages=32)
    module = parse(
        outer + _kernel("", LOAD.format(n=64) + USE.format(n=64)).replace("@k", "@k2")
    )
    printed = print_ir(module)
    declines = slot_declines(module, default_costs().capacities)
    assert print_ir(module) == printed
    loops = [op for op in module.walk() if isinstance(op, PipelineOp)]
    assert [loop.num_stages for loop in loops] == [32, 2]
    assert list(declines) == loops[:1]
    assert declines[loops[0]].gate is Gate.STAGES
    rotate(module)  # the pass agrees: it rotates the second loop alone
    left = [op.num_stages for op in module.walk() if isinstance(op, PipelineOp)]
    assert left == [32]


def test_gates_of_the_loop():
    module = parse(_kernel("", LOAD.format(n=64) + USE.format(n=64), stages=1))
    loop = next(op for op in module.walk() if isinstance(op, PipelineOp))
    stages_one = check_loop(loop, None)
    assert stages_one is not None and stages_one.gate is Gate.STAGES
    nested = check_loop(loop, loop)
    assert nested is not None and nested.gate is Gate.NESTED and nested.op is loop


def test_the_budget_counts_the_authors_allocations():
    """4 x 16 KiB of the author's, then 4 slots of 36 KiB: over the 192 KiB of vec."""
    text = _kernel(
        '  %mine = pypto.alloc "mine" slots 4 : !pypto.alloc<vec>',
        "    %c2 = arith.constant 2 : index\n"
        + "    %m = pypto.tile.load %x[%i] : !pypto.tensor<16384xf32> -> !pypto.tile<4096xf32, vec>\n"
        + "    %mb = pypto.bind %m to %mine[%c2] : !pypto.tile<4096xf32, vec>\n"
        + '    "test.op"(%mb) : (!pypto.tile<4096xf32, vec>) -> ()\n'
        + LOAD.format(n=9216)
        + USE.format(n=9216),
        stages=4,
    )
    module = parse(text)
    function = find_kernel(module, "k")
    capacities = default_costs().capacities
    budget = SlotBudget.of_function(function, capacities)
    assert budget.pinned == {MemorySpace.VEC: 4 * 4096 * 4}
    loop = next(op for op in module.walk() if isinstance(op, PipelineOp))
    loads = slot_candidates(loop)
    assert isinstance(loads, list) and [load.result.name_hint for load in loads] == [
        "t"
    ]
    decline = budget.admit(loop, loads)
    assert decline is not None and decline.gate is Gate.CAPACITY
    assert budget.pinned == {MemorySpace.VEC: 4 * 4096 * 4}, "nothing pinned"
    # Without the author's allocation, the same loop fits.
    assert SlotBudget(capacities).admit(loop, loads) is None


def test_names_are_identifiers_and_new():
    text = _kernel(
        '  %taken = pypto.alloc "pipe_a_b" : !pypto.alloc<vec>',
        "    %a.b = pypto.tile.load %x[%i] : !pypto.tensor<16384xf32> -> !pypto.tile<64xf32, vec>\n"
        + '    "test.op"(%a.b) : (!pypto.tile<64xf32, vec>) -> ()\n'
        + "    %0 = pypto.tile.load %x[%i] : !pypto.tensor<16384xf32> -> !pypto.tile<64xf32, vec>\n"
        + '    "test.op"(%0) : (!pypto.tile<64xf32, vec>) -> ()\n',
    )
    module = parse(text)
    rotate(module)
    names = [op.label for op in module.walk() if isinstance(op, AllocOp)]
    assert names == ["pipe_a_b_1", "pipe_load", "pipe_a_b"]


def test_bad_cost_table_is_a_pass_failure(tmp_path: Path):
    table = tmp_path / "costs.json"
    table.write_text("[]")
    module = parse(_kernel("", LOAD.format(n=64) + USE.format(n=64)))
    with pytest.raises(PassFailedException, match="must be a JSON object"):
        rotate(module, costs=str(table))
