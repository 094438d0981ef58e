"""
Helpers the unit tests share: parsing and printing, the small kernels several
modules test, and the lowered corpus.
"""

from __future__ import annotations

from io import StringIO

import pytest
from corpus import sound_inputs
from xdsl.context import Context
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import PassFailedException, VerifyException

from bench.kernels.strategies import GeneratedKernel
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp


def with_test_dialect() -> Context:
    """The pypto context with xDSL's `test` dialect (for `test.op` in inputs)."""
    ctx = pypto_context()
    ctx.load_dialect(test_dialect.Test)
    return ctx


def parse(
    text: str,
    *,
    ctx: Context | None = None,
    verify: bool = True,
    name: str = "<unknown>",
) -> ModuleOp:
    """`text` (from `name`) parsed in `ctx` or `with_test_dialect()`, verified unless told."""
    context = with_test_dialect() if ctx is None else ctx
    module = Parser(context, text, name).parse_module()
    if verify:
        module.verify()
    return module


def print_ir(module: ModuleOp, *, generic: bool = False) -> str:
    """`module` printed, in the custom form unless `generic`."""
    stream = StringIO()
    Printer(stream, print_generic_format=generic).print_op(module)
    return stream.getvalue()


def add_one(stages: int) -> str:
    """out[i] = x[i] + 1 over 8 tiles of 128 f32, in a pipeline of `stages`."""
    return f"""
func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages {stages} {{
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }}
  func.return
}}
"""


READ_HOISTED = GeneratedKernel(
    # `tile.read` is scheduled with the loads but runs on VECTOR: the reads of
    # the four stages, hoisted above their `exp`s, make the first `exp` wait
    # for the last load.
    """
func.func @kernel(%x: !pypto.tensor<64x64xf32>, %z: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %r = pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 iter_args(%acc = %one) -> (f32) {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8x64xf32, vec>
    %w = pypto.tile.exp %y : !pypto.tile<8x64xf32, vec>
    pypto.tile.store %w, %out[%off, %c0] : !pypto.tile<8x64xf32, vec>, !pypto.tensor<64x64xf32>
    %u = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<1x64xf32, vec>
    %e = pypto.tile.read %u[%c0, %c0] : !pypto.tile<1x64xf32, vec>
    %s = arith.addf %acc, %e : f32
    pypto.yield %s : f32
  }
  func.return %r : f32
}
""",
    {},
)
"""A kernel whose hoisted `tile.read`s the orders must keep behind the loads."""


def lowered(module: ModuleOp) -> ModuleOp | None:
    """A lowered copy of `module`, None where the lowering rejects it."""
    lowered = module.clone()
    try:
        LowerPipelineLoopsPass().apply(pypto_context(), lowered)
    except (PassFailedException, VerifyException):
        return None
    return lowered


LOWERED_CORPUS = [
    pytest.param(lowered_module, id=name)
    for name, module in sound_inputs()
    if any(isinstance(op, PipelineOp) for op in module.walk())
    and (lowered_module := lowered(module)) is not None
]
"""The lit inputs and examples with a pipeline, lowered (those it accepts)."""
