"""
Control flow: `scf.for`, `pypto.pipeline`, `scf.while` and `cf` branches,
with a step checked at run time and a budget of loop iterations, so that no
kernel runs without end (`DEFAULT_MAX_ITERATIONS`).
"""

from __future__ import annotations

from xdsl.dialects import cf, scf
from xdsl.interpreter import (
    Interpreter,
    PythonValues,
    Successor,
    impl_terminator,
    register_impls,
)
from xdsl.interpreters.cf import CfFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.interpreter.values import implementation, integer_scalar
from pypto_dialect.interpreter_limits import DEFAULT_MAX_ITERATIONS
from pypto_dialect.pipeline import PipelineOp

ITERATIONS_LEFT = "iterations_left"
"""Key of the remaining budget in the interpreter's data."""


def spend_iterations(interpreter: Interpreter, op_name: str, count: int) -> None:
    """Take `count` from the run's budget, or raise if it is exhausted."""
    left: int = interpreter.get_data(
        PyPTOScfFunctions, ITERATIONS_LEFT, lambda: DEFAULT_MAX_ITERATIONS
    )
    if count > left:
        raise InterpretationError(
            f"{op_name}: the run would exceed its budget of loop iterations and "
            f"branches taken ({count} needed, {left} left); raise it with "
            "--max-iterations (pypto-run) or max_iterations (run_kernel)"
        )
    interpreter.set_data(PyPTOScfFunctions, ITERATIONS_LEFT, left - count)


def run_loop(
    interpreter: Interpreter, op: scf.ForOp | PipelineOp, args: PythonValues
) -> PythonValues:
    """`scf.for` semantics; a non-positive step is an error, not an endless loop."""
    lower, upper, step, *carried = args
    first: int = lower.value.data
    end: int = upper.value.data
    step_value: int = step.value.data
    if step_value <= 0:
        raise InterpretationError(
            f"{op.name}: the step must be positive at run time, got {step_value}"
        )
    # `len(range(...))` raises OverflowError past 2^63 - 1 iterations.
    spend_iterations(interpreter, op.name, max(0, -((first - end) // step_value)))
    values = tuple(carried)
    for index in range(first, end, step_value):
        induction = integer_scalar(index, op.lb.type)
        values = interpreter.run_ssacfg_region(op.body, (induction, *values), op.name)
    return values


def run_while_loop(
    interpreter: Interpreter, op: scf.WhileOp, args: PythonValues
) -> PythonValues:
    """`scf.while` semantics; each run of the `do` region spends one of the budget."""
    values = args
    while True:
        condition, *forwarded = interpreter.run_ssacfg_region(
            op.before_region, values, op.name
        )
        if not condition:
            return tuple(forwarded)
        spend_iterations(interpreter, op.name, 1)
        values = interpreter.run_ssacfg_region(
            op.after_region, tuple(forwarded), op.name
        )


@register_impls
class PyPTOScfFunctions(ScfFunctions):
    """
    xDSL's `scf` semantics, with a run-time check of the `scf.for` step and
    loops that spend the run's budget of iterations.
    """

    run_for = implementation(scf.ForOp, run_loop)
    run_while = implementation(scf.WhileOp, run_while_loop)


@register_impls
class PyPTOCfFunctions(CfFunctions):
    """xDSL's `cf` semantics; each branch taken spends one of the budget."""

    @impl_terminator(cf.BranchOp)
    def run_br(
        self, interpreter: Interpreter, op: cf.BranchOp, args: PythonValues
    ) -> tuple[Successor, PythonValues]:
        spend_iterations(interpreter, op.name, 1)
        return Successor(op.successor, args), ()

    @impl_terminator(cf.ConditionalBranchOp)
    def run_cond_br(
        self,
        interpreter: Interpreter,
        op: cf.ConditionalBranchOp,
        args: PythonValues,
    ) -> tuple[Successor, PythonValues]:
        spend_iterations(interpreter, op.name, 1)
        if args[0]:
            return Successor(op.then_block, args[1 : 1 + len(op.then_arguments)]), ()
        return Successor(op.else_block, args[1 + len(op.then_arguments) :]), ()
