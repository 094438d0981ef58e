"""
Property tests of the PyPTO frontend and target on generated kernels
(`bench.kernels.strategies.kernels()`):

* exported to PyPTO text and imported back, a kernel runs bit-identically
  (same outputs, on its `index_args` and seeded random inputs), before and
  after both passes;
* export is a fixed point after one round trip: `export(import(export(m)))`
  is `export(m)`, also with the declared allocations of
  `lower-pipeline-to-slots`;
* no input is a traceback: mutated PyPTO text (lines dropped, duplicated,
  cut or swapped) either imports into a verified module or is a
  `ParseError`; a mutated MLIR kernel that verifies either exports (and
  reads back to the same text) or is an `ExportError` at an op.
"""

from __future__ import annotations

from io import StringIO

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutant, mutants
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError, VerifyException

from bench.kernels.strategies import GeneratedKernel, kernels
from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.dsl import ExportError, parse_pypto, print_pypto
from pypto_dialect.interpreter import (
    KernelRun,
    compare_runs,
    find_kernel,
    random_inputs,
    run_kernel,
)

pytestmark = pytest.mark.slow

CONTEXT = pypto_context()
SEEDS = st.integers(0, 2**32 - 1)


def export(module: ModuleOp) -> str:
    stream = StringIO()
    print_pypto(module, stream)
    return stream.getvalue()


def run(module: ModuleOp, generated: GeneratedKernel, seed: int) -> KernelRun:
    kernel = find_kernel(module, generated.entry)
    inputs = random_inputs(kernel, seed, generated.index_args)
    return run_kernel(module, generated.entry, inputs)


@given(kernels(pypto_form=True), SEEDS)
def test_exported_kernels_import_back_and_run_bit_identically(
    generated: GeneratedKernel, seed: int
) -> None:
    module = Parser(CONTEXT, generated.text).parse_module()
    module.verify()
    text = export(module)
    imported = parse_pypto(CONTEXT, text, "exported.py")
    assert (
        compare_runs(run(module, generated, seed), run(imported, generated, seed)) == []
    )
    assert export(imported) == text


@given(kernels(max_stages=4, pypto_form=True), SEEDS)
def test_passes_on_imported_kernels_keep_their_results(
    generated: GeneratedKernel, seed: int
) -> None:
    """The passes on the PyPTO form, and their output exported and imported again."""
    imported = parse_pypto(
        CONTEXT, export(Parser(CONTEXT, generated.text).parse_module())
    )
    before = run(imported, generated, seed)
    LowerPipelineLoopsPass().apply(CONTEXT, imported)
    CanonicalizeIOOrderPass().apply(CONTEXT, imported)
    imported.verify()
    text = export(imported)
    again = parse_pypto(CONTEXT, text, "lowered.py")
    assert compare_runs(before, run(again, generated, seed)) == []
    assert export(again) == text


@given(kernels(max_stages=4, rotatable=True, bindings=True, pypto_form=True), SEEDS)
def test_rotated_kernels_export_and_import_back(
    generated: GeneratedKernel, seed: int
) -> None:
    """
    `lower-pipeline-to-slots` on the PyPTO form of kernels with bindings of
    their own: the bindings print as `pl.MemRef("name", slots=F)[slot]`
    annotations, which read back to the same program (a fixed point) that
    runs bit-identically.
    """
    imported = parse_pypto(
        CONTEXT, export(Parser(CONTEXT, generated.text).parse_module())
    )
    before = run(imported, generated, seed)
    LowerPipelineToSlotsPass().apply(CONTEXT, imported)
    imported.verify()
    text = export(imported)
    again = parse_pypto(CONTEXT, text, "rotated.py")
    assert compare_runs(before, run(again, generated, seed)) == []
    assert export(again) == text


@given(mutants())
def test_any_verified_module_exports_or_fails_at_an_op(mutant: Mutant) -> None:
    """Mutated MLIR kernels: what verifies exports and reads back, or is an `ExportError`."""
    try:
        module = parse_module(CONTEXT, mutant.text, "k.mlir")
        verify_module(module)
    except (ParseError, VerifyException):
        return
    try:
        text = export(module)
    except ExportError as error:
        assert error.op is not None
        return
    assert export(parse_pypto(CONTEXT, text, "exported.py")) == text


@st.composite
def mutated_programs(draw: st.DrawFn) -> str:
    """An exported kernel with a few lines dropped, duplicated, cut or swapped."""
    generated = draw(kernels(max_stages=3, pypto_form=True))
    lines = export(Parser(CONTEXT, generated.text).parse_module()).splitlines()
    for _ in range(draw(st.integers(1, 3))):
        index = draw(st.integers(0, len(lines) - 1))
        kind = draw(st.integers(0, 3))
        if kind == 0:
            del lines[index]
        elif kind == 1:
            lines.insert(index, lines[index])
        elif kind == 2:
            lines[index] = lines[index][: draw(st.integers(0, len(lines[index])))]
        else:
            other = draw(st.integers(0, len(lines) - 1))
            lines[index], lines[other] = lines[other], lines[index]
        if not lines:
            break
    return "\n".join(lines) + "\n"


@given(mutated_programs())
def test_mutated_programs_are_diagnostics_not_tracebacks(text: str) -> None:
    try:
        module = parse_pypto(CONTEXT, text, "mutated.py")
    except ParseError as error:
        assert str(error.span.get_location()).startswith("mutated.py:")
        return
    module.verify()
    export(module)
