"""Loops: `scf.for` and `pypto.pipeline`, with a step checked at run time."""

from __future__ import annotations

from xdsl.dialects import scf
from xdsl.interpreter import Interpreter, PythonValues, register_impls
from xdsl.interpreters.scf import ScfFunctions
from xdsl.utils.exceptions import InterpretationError

from pypto_dialect.interpreter.values import implementation, integer_scalar
from pypto_dialect.pipeline import PipelineOp


def run_loop(
    interpreter: Interpreter, op: scf.ForOp | PipelineOp, args: PythonValues
) -> PythonValues:
    """`scf.for` semantics; a non-positive step is an error, not an endless loop."""
    lower, upper, step, *carried = args
    step_value: int = step.value.data
    if step_value <= 0:
        raise InterpretationError(
            f"{op.name}: the step must be positive at run time, got {step_value}"
        )
    values = tuple(carried)
    for index in range(lower.value.data, upper.value.data, step_value):
        induction = integer_scalar(index, op.lb.type)
        values = interpreter.run_ssacfg_region(op.body, (induction, *values), op.name)
    return values


@register_impls
class PyPTOScfFunctions(ScfFunctions):
    """xDSL's `scf` semantics, with a run-time check of the `scf.for` step."""

    run_for = implementation(scf.ForOp, run_loop)
