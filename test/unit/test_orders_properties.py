"""
`order=engine` and `order=modelled` keep every dependence, on generated
kernels (`kernel_strategies.kernels()`) through `lower-pipeline-loops`:

* the independent legality check (`legality.py`) finds no conflicting memory
  accesses reordered, and the interpreter's outputs are bit-identical to the
  lowered kernel's for random inputs;
* the output verifies, its use lists are sound, and the pass is idempotent
  (`test_properties.check_output`).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from kernel_strategies import GeneratedKernel, kernels
from legality import reorder_violations
from test_properties import NONE, SEEDS, Run, check_output, lower

from passes.canonicalize_io_order import CanonicalizeIOOrderPass

BUDGET = (
    settings(max_examples=40)
    if settings.get_current_profile_name() == "ci"
    else settings()
)
"""40 kernels per order in CI (each is run three times), else the profile's count."""


@pytest.mark.parametrize("order", ["engine", "modelled"])
@BUDGET
@given(kernels(), SEEDS)
def test_order_keeps_every_dependence(order: str, kernel: GeneratedKernel, seed: int):
    run = Run(kernel, seed)
    lower(run, round_trip=False)
    reorder = CanonicalizeIOOrderPass(order=order)
    assert run.apply(reorder, reorder_violations) == NONE
    check_output(reorder, run.module, round_trip=True)
