"""
The stages advisor lowers, per candidate, a copy of the pipeline's nest
(`nest_module`), not of the module: `auto-stages` costs linear in the
number of pipelines, with the same advice.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import PassPipeline

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.schedule import advisor
from passes.schedule.advisor import StagesAdvisor, choose_stages
from passes.schedule.defaults import MAX_ADVISED_DEPTH
from passes.schedule.engines import default_costs
from passes.schedule.lowered import nest_module, pipelines
from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops


def siblings(count: int) -> str:
    """`count` sibling pipelines in one function, an outer one with a nested one last."""
    lines = [
        "func.func private @opaque()",
        "func.func @f(%x: !pypto.tensor<4096xf32>, %n: index) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
        "  %c64 = arith.constant 64 : index",
    ]
    for k in range(count):
        lines += [
            f"  pypto.pipeline %i{k} = %c0 to %c2 step %c1 stages 2 {{",
            f"    %off{k} = arith.muli %i{k}, %c64 : index",
            f"    %t{k} = pypto.tile.load %x[%off{k}] : !pypto.tensor<4096xf32> -> !pypto.tile<64xf32, vec>",
            f"    pypto.tile.store %t{k}, %x[%off{k}] : !pypto.tile<64xf32, vec>, !pypto.tensor<4096xf32>",
            "  }",
        ]
    lines += [
        "  pypto.pipeline %o = %c0 to %n step %c1 stages 2 {",
        "    func.call @opaque() : () -> ()",
        "    pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {",
        "      %off = arith.muli %i, %c64 : index",
        "      %t = pypto.tile.load %x[%off] : !pypto.tensor<4096xf32> -> !pypto.tile<64xf32, vec>",
        "      pypto.tile.store %t, %x[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<4096xf32>",
        "    }",
        "  }",
        "  func.return",
        "}",
    ]
    return "\n".join(lines)


def test_a_nest_is_its_outermost_pipeline_with_what_it_uses():
    module = parse_module(pypto_context(), siblings(3))
    found = pipelines(module)
    for pipeline in found:
        nest, index = nest_module(pipeline)
        verify_module(nest)
        copied = pipelines(nest)
        assert copied[index].num_stages == pipeline.num_stages
        outermost = 3 if pipeline in found[3:] else found.index(pipeline)
        assert len(copied) == len(pipelines(found[outermost]))
        functions = [op for op in nest.ops if isinstance(op, func.FuncOp)]
        # The tensor and the dynamic bound are arguments; the constants copied.
        (kernel,) = [f for f in functions if f.body.blocks]
        assert sorted(str(t) for t in kernel.function_type.inputs) == (
            ["!pypto.tensor<4096xf32>", "index"]
            if pipeline in found[3:]
            else ["!pypto.tensor<4096xf32>"]
        )
        # The called function is declared.
        assert len(functions) == (2 if pipeline in found[3:] else 1)


@pytest.mark.parametrize("count", [2, 8])
def test_each_candidate_lowers_only_its_nest(
    count: int, monkeypatch: pytest.MonkeyPatch
):
    sizes: list[int] = []
    lower = StagesAdvisor._lower  # pyright: ignore[reportPrivateUsage]

    def recording(self: StagesAdvisor, nest: ModuleOp, index: int, stages: int):
        sizes.append(sum(1 for _ in walk_ops(nest)))
        return lower(self, nest, index, stages)

    monkeypatch.setattr(StagesAdvisor, "_lower", recording)
    ctx = pypto_context()
    module = parse_module(ctx, siblings(count))
    passes = PassPipeline((LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()))
    choose_stages(ctx, module, passes, default_costs())
    verify_module(module)
    # Whatever the number of siblings, a candidate's copy is one nest.
    assert sizes and max(sizes) < 20


def nested(depth: int) -> str:
    """`depth` pipelines of stages 2, each in the one before, a load and store in each."""
    lines = [
        "func.func @f(%x: !pypto.tensor<4096xf32>) {",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %c2 = arith.constant 2 : index",
    ]
    for k in range(depth):
        lines += [
            f"  pypto.pipeline %i{k} = %c0 to %c2 step %c1 stages 2 {{",
            f"    %t{k} = pypto.tile.load %x[%i{k}] : !pypto.tensor<4096xf32> -> !pypto.tile<64xf32, vec>",
            f"    pypto.tile.store %t{k}, %x[%i{k}] : !pypto.tile<64xf32, vec>, !pypto.tensor<4096xf32>",
        ]
    lines += ["  }"] * depth + ["  func.return", "}"]
    return "\n".join(lines)


def test_auto_stages_copies_within_one_budget_per_module(
    monkeypatch: pytest.MonkeyPatch,
):
    """Each candidate copies the whole nest: past the module's budget, stages are kept."""
    ctx = pypto_context()
    module = parse_module(ctx, nested(6))
    nest = sum(1 for _ in walk_ops(pipelines(module)[0]))
    # Two candidates (stages 1 and 2) per pipeline, each a copy of the nest:
    # room for three pipelines.
    monkeypatch.setattr(advisor, "MAX_AUTO_STAGES_OPS", 3 * 2 * nest + 1)
    passes = PassPipeline((LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()))
    remarks = choose_stages(ctx, module, passes, default_costs())
    kept = [remark for remark in remarks if "stages 2 kept" in remark]
    assert len(kept) == 3
    verify_module(module)


def test_auto_stages_leaves_a_nest_past_the_advisor_s_depth_alone():
    """Lowering a nest copies each level's body: quadratic in its depth."""
    ctx = pypto_context()
    module = parse_module(ctx, nested(MAX_ADVISED_DEPTH + 1))
    passes = PassPipeline((LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()))
    remarks = choose_stages(ctx, module, passes, default_costs())
    assert len(remarks) == MAX_ADVISED_DEPTH + 1
    assert all("past the advisor's 16" in remark for remark in remarks)
    assert all(p.num_stages == 2 for p in pipelines(module))
