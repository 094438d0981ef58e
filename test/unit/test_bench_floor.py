"""`bench.floor`: the floor rebuilds exactly the ops the lowering created."""

from __future__ import annotations

import pytest

from bench import floor
from bench.cases import MAX_COPIES, items_module, parse
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops


def test_the_floor_creates_the_lowerings_new_ops():
    ctx = pypto_context()
    module = parse(ctx, items_module(2, 4, 7))
    original = {id(op) for op in walk_ops(module)}
    created = floor.created_ops(
        ctx, module, LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    )
    assert created and all(id(op) not in original for op in created)
    assert len(created) + len(original) - 1 == sum(1 for _ in walk_ops(module))
    made = floor.create_all(floor.specs(created))
    assert [type(op) for op in made] == [type(op) for op in created]
    for ours, theirs in zip(made, created, strict=True):
        assert list(ours.operands) == list(theirs.operands)
        assert ours.properties == theirs.properties
        assert ours.result_types == theirs.result_types


@pytest.mark.slow
def test_the_table_has_every_case_and_ratio():
    results = [floor.measure(case, 1) for case in floor.cases(floor.Scale([300], [2]))]
    assert [r.case.family for r in results] == [
        "unroll",
        "stages-static",
        "stages-dynamic",
    ]
    assert results[0].created_by_unroll and results[0].unroll is not None
    text = floor.table(results)
    rows = text.splitlines()[2:]
    assert len(rows) == 3
    assert rows[0].split(" | ")[-1] != "n/a |"  # (e) of the unroll case
    assert rows[1].endswith("| n/a |")
