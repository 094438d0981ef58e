"""
Loops at the ends of the `index` range: `lower-pipeline-loops` keeps the
results of loops with any bounds and any step it accepts, and the index
arithmetic it emits never overflows; the interpreter counts any trip count.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from ir_integrity import apply_checked
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.interpreter import Interpreter, PythonValues
from xdsl.ir import Operation
from xdsl.parser import Parser
from xdsl.utils.comparisons import to_signed
from xdsl.utils.exceptions import InterpretationError, PassFailedException

from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.mechanisms.unroll import REMAINDERS, Remainder
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import run_kernel
from pypto_dialect.numbers import INDEX_BITS, INDEX_MAX, INDEX_MIN

EXTREMES = (
    INDEX_MIN,
    INDEX_MIN + 1,
    INDEX_MIN + 2,
    -(2**62),
    -1,
    0,
    1,
    2**62,
    INDEX_MAX - 2,
    INDEX_MAX - 1,
    INDEX_MAX,
)
"""Bounds: both ends of the range, around 0 and halfway."""
STEPS_AND_STAGES = [
    (step, stages)
    for step in (1, 2, 3, 2**61 + 1, 2**62 - 1, INDEX_MAX // 3)
    for stages in (2, 3, 4)
    if step * stages <= INDEX_MAX
]
"""Steps and stage counts the lowering accepts (`stages * step` fits)."""
BUDGET = 1000
"""Iterations a run may take: runs of more fail (before the lowering, or both)."""

_WRAPPING: dict[type[Operation], Callable[[int, int], int]] = {
    arith.AddiOp: int.__add__,
    arith.SubiOp: int.__sub__,
    arith.MuliOp: int.__mul__,
}


class NoOverflow(Interpreter.Listener):
    """Fails a run in which an `index` addition, subtraction or product wraps."""

    def will_interpret_op(self, op: Operation, args: PythonValues) -> None:
        compute = _WRAPPING.get(type(op))
        if compute is None or not isinstance(op.results[0].type, IndexType):
            return
        lhs, rhs = (to_signed(arg.value.data, INDEX_BITS) for arg in args)
        exact = compute(lhs, rhs)
        assert INDEX_MIN <= exact <= INDEX_MAX, f"{op.name} {lhs}, {rhs} overflows"


def counting_kernel(lb: str, ub: str, step: int, stages: int) -> str:
    """
    `@kernel(%lb_arg, %ub_arg)`: the iteration count and the last index of a
    loop from `lb` to `ub` (`%lb_arg`, `%ub_arg` or an integer).
    """
    return f"""
    func.func @kernel(%lb_arg: index, %ub_arg: index) -> (index, index) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %step = arith.constant {step} : index
      %lb = arith.constant {0 if lb.startswith("%") else lb} : index
      %ub = arith.constant {0 if ub.startswith("%") else ub} : index
      %count, %last = pypto.pipeline %i = {lb if lb.startswith("%") else "%lb"}
          to {ub if ub.startswith("%") else "%ub"} step %step stages {stages}
          iter_args(%n = %c0, %l = %c0) -> (index, index) {{
        %next = arith.addi %n, %c1 : index
        pypto.yield %next, %i : index, index
      }}
      func.return %count, %last : index, index
    }}
    """


def lowered(source: str, remainder: Remainder = "cascade") -> ModuleOp:
    module = Parser(pypto_context(), source).parse_module()
    module.verify()
    lower = LowerPipelineLoopsPass(remainder=remainder)
    apply_checked(lower, pypto_context(), module)
    return module


def trip_count(lb: int, ub: int, step: int) -> int:
    """`len(range(lb, ub, step))`, which Python cannot give past 2^63 - 1."""
    return max(0, -((lb - ub) // step))


def check_run(module: ModuleOp, lb: int, ub: int, step: int) -> None:
    """
    The lowered loop from `lb` to `ub` counts what the loop would, without
    overflow, or (with more iterations than the budget) runs out of budget.
    """
    trip = trip_count(lb, ub, step)
    try:
        run = run_kernel(
            module,
            "kernel",
            {"lb_arg": lb, "ub_arg": ub},
            listeners=(NoOverflow(),),
            max_iterations=BUDGET,
        )
    except InterpretationError as error:
        assert trip > BUDGET, (lb, ub, step, trip, error)
        assert "budget" in str(error)
        return
    last = lb + (trip - 1) * step if trip else 0
    assert tuple(map(int, run.results)) == (trip, last), (lb, ub, step)


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize(("step", "stages"), STEPS_AND_STAGES)
def test_dynamic_bounds_at_the_extremes(step: int, stages: int, remainder: Remainder):
    source = counting_kernel("%lb_arg", "%ub_arg", step, stages)
    module = lowered(source, remainder)
    for lb, ub in itertools.product(EXTREMES, repeat=2):
        check_run(module, lb, ub, step)


@pytest.mark.parametrize(
    ("lb", "ub", "stages"), [(INDEX_MAX, INDEX_MIN + 1, 3), (1, INDEX_MIN, 2)]
)
@pytest.mark.parametrize("remainder", REMAINDERS)
def test_empty_loops_at_the_extremes_stay_empty(
    lb: int, ub: int, stages: int, remainder: Remainder
):
    """
    The issue's cases: `ub - lb` wrapped to 2 (a remainder of 2 iterations
    ran) and to 2^63 - 1 (a main loop of 4.6e18 iterations).
    """
    module = lowered(counting_kernel("%lb_arg", str(ub), 1, stages), remainder)
    run = run_kernel(module, "kernel", {"lb_arg": lb, "ub_arg": 0})
    assert tuple(map(int, run.results)) == (0, 0)


STATIC_EXTREMES = (INDEX_MIN, INDEX_MIN + 1, -1, 0, INDEX_MAX - 1, INDEX_MAX)


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("stages", (2, 3))
@pytest.mark.parametrize("step", (1, 2**61 + 1))
def test_static_bounds_at_the_extremes(step: int, stages: int, remainder: Remainder):
    for lb, ub in itertools.product(STATIC_EXTREMES, repeat=2):
        if trip_count(lb, ub, step) > BUDGET:
            continue  # flattened copies: the lowering would refuse, or be huge
        source = counting_kernel(str(lb), str(ub), step, stages)
        module = lowered(source, remainder)
        check_run(module, lb, ub, step)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (0, "step cannot be zero"),
        (-1, "negative steps are not supported"),
        (INDEX_MIN, "negative steps are not supported"),
        (INDEX_MAX, "overflows the 64-bit index type"),
    ],
)
def test_steps_the_lowering_rejects(step: int, message: str):
    module = Parser(pypto_context(), counting_kernel("%lb_arg", "%ub_arg", step, 2))
    with pytest.raises(PassFailedException, match=message):
        LowerPipelineLoopsPass().apply(pypto_context(), module.parse_module())


def test_trip_counts_past_the_largest_index_spend_the_budget():
    """`len(range(...))` raised OverflowError past 2^63 - 1 iterations."""
    module = Parser(
        pypto_context(), counting_kernel(str(INDEX_MIN), str(INDEX_MAX), 1, 1)
    ).parse_module()
    with pytest.raises(InterpretationError, match="18446744073709551615 needed"):
        run_kernel(module, "kernel", {"lb_arg": 0, "ub_arg": 0})
