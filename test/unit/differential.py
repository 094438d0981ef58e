"""
The differential harness of the property tests: a generated kernel run in the
interpreter before and after a pass, its outputs and memory accesses compared,
and the pass's output checked (a fixed point, prints and parses back).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import NamedTuple

from helpers import parse, print_ir
from hypothesis import event
from hypothesis import strategies as st
from ir_integrity import apply_checked
from legality import Trace, copy_violations, trace_kernel
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from bench.kernels.strategies import GeneratedKernel
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import (
    KernelArg,
    compare_runs,
    find_kernel,
    random_inputs,
)

CONTEXT = pypto_context()
SLOTS = LowerPipelineToSlotsPass()
LOWER = LowerPipelineLoopsPass()
SEEDS = st.integers(0, 2**32 - 1)
"""Seeds of the random inputs."""
Legality = Callable[[Trace, Trace], list[str]]


def check_output(pass_: ModulePass, module: ModuleOp, *, round_trip: bool) -> None:
    """
    `module`, the (verified) output of `pass_`, is a fixed point of `pass_`
    and (with `round_trip`) parses back identically from its custom and
    generic forms.
    """
    text = print_ir(module)
    again = module.clone()
    apply_checked(pass_, CONTEXT, again)
    assert print_ir(again) == text, f"{pass_.name} is not idempotent"
    if round_trip:
        assert print_ir(parse(text, ctx=CONTEXT, verify=False)) == text
        assert (
            print_ir(parse(print_ir(module, generic=True), ctx=CONTEXT, verify=False))
            == text
        )


class Run:
    """One generated kernel, its inputs, and its current module and trace."""

    def __init__(self, kernel: GeneratedKernel, seed: int):
        for feature in kernel.features:
            event(feature)
        self.kernel = kernel
        self.module = parse(kernel.text, ctx=CONTEXT, verify=False)
        self.module.verify()
        kernel_op = find_kernel(self.module, kernel.entry)
        self.inputs: Mapping[str, KernelArg] = random_inputs(
            kernel_op, seed, kernel.index_args
        )
        self.trace = self.run()

    def run(self) -> Trace:
        return trace_kernel(self.module, self.kernel.entry, self.inputs)

    def apply(self, pass_: ModulePass, legality: Legality) -> Differences:
        """
        Apply `pass_` in place, check the output's integrity (it verifies, its
        links are sound), and return how the run after the pass differs from
        the run before.
        """
        apply_checked(pass_, CONTEXT, self.module)
        before, self.trace = self.trace, self.run()
        return Differences(
            compare_runs(before.run, self.trace.run), legality(before, self.trace)
        )


class Differences(NamedTuple):
    outputs: list[str]
    """The outputs that are not bit-identical."""
    violations: list[str]
    """Conflicting memory accesses whose order changed."""


NONE = Differences([], [])


def lower(run: Run, *, round_trip: bool = True, pass_: ModulePass = LOWER) -> None:
    """Apply `lower-pipeline-loops` (`pass_`) and check every property."""
    assert run.apply(pass_, copy_violations) == NONE
    check_output(pass_, run.module, round_trip=round_trip)
