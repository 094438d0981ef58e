"""
Bad input through the Python API (issue 10): `pypto_dialect.checked` turns
xDSL's crashes into located diagnostics, the pipeline verifier checks
dominance, and the lowering's limits fail fast without touching the IR;
(issue 26) messages word integers of any size.
"""

from __future__ import annotations

import re
import sys
import time

import numpy as np
import pytest
from helpers import print_ir
from ir_integrity import apply_checked, check_integrity
from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    f32,
)
from xdsl.ir import Block, Region
from xdsl.parser import Parser
from xdsl.utils.exceptions import (
    InterpretationError,
    ParseError,
    PassFailedException,
    VerifyException,
)

from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.attributes import MembershipAttr
from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import run_kernel
from pypto_dialect.numbers import integer_text
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.tile.verification import verify_offsets_in_bounds
from pypto_dialect.types import TensorType
from pypto_dialect.xdsl_internals import fast_paths_enabled

CTX = pypto_context()


def nested_loops(depth: int) -> str:
    opening = "".join(f"scf.for %i{k} = %c to %c step %c {{\n" for k in range(depth))
    return f"func.func @f(%c: index) {{\n{opening}{'}' * depth}\nreturn\n}}\n"


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            '"func.func"() ({\n  "func.return"() : () -> ()\n}) {sym_name = "f"} '
            ": () -> ()",
            "xDSL's verifier failed: KeyError: 'function_type'",
        ),
        (
            '"func.func"() ({\n  "func.return"() : () -> ()\n}) '
            '{sym_name = "f", function_type = 3 : i64} : () -> ()',
            "xDSL's verifier failed: AttributeError",
        ),
    ],
    ids=["no-function-type", "function-type-not-a-type"],
)
def test_xdsl_verifier_crashes_are_located_diagnostics(source: str, message: str):
    module = parse_module(CTX, source, "k.mlir")
    with pytest.raises(VerifyException, match=message):
        verify_module(module)


def test_a_name_defined_only_in_a_nested_region_is_a_parse_error():
    source = """
    func.func @f(%lb: index) {
      pypto.pipeline %i = %lb to %i step %lb stages 2 {
      }
      func.return
    }
    """
    with pytest.raises(ParseError, match=r"operand #1 of 'pypto\.pipeline' is not"):
        parse_module(CTX, source, "k.mlir")


def test_deep_nesting_is_a_parse_error():
    with pytest.raises(ParseError, match="nested too deeply to parse"):
        parse_module(CTX, nested_loops(400), "k.mlir")


def test_moderate_nesting_parses():
    verify_module(parse_module(CTX, nested_loops(50), "k.mlir"))


def test_parsed_ops_get_their_source_location():
    module = parse_module(CTX, "func.func @f() {\n  func.return\n}\n", "k.mlir")
    function = module.body.block.first_op
    assert isinstance(function, func.FuncOp)
    ret = function.body.block.first_op
    assert ret is not None
    assert ret.location == FileLineColLoc(StringAttr("k.mlir"), IntAttr(2), IntAttr(3))


def _pipeline_using(value_of_other_region: bool) -> ModuleOp:
    """A pipeline whose body uses a value of a sibling loop's body, or its own."""
    index = IndexType()
    c0 = arith.ConstantOp.from_int_and_width(0, index)
    sibling_body = Block(arg_types=[index])
    inner = arith.AddiOp(sibling_body.args[0], sibling_body.args[0])
    sibling_body.add_ops([inner, scf.YieldOp()])
    sibling = scf.ForOp(c0, c0, c0, [], Region(sibling_body))
    body = Block(arg_types=[index])
    used = inner.result if value_of_other_region else body.args[0]
    body.add_ops([arith.AddiOp(used, used), YieldOp()])
    pipeline = PipelineOp(c0, c0, c0, [], body, 2)
    function = func.FuncOp("f", ((), ()), Region(Block([c0, sibling, pipeline])))
    function.body.block.add_op(func.ReturnOp())
    return ModuleOp([function])


def test_value_of_another_loops_region_does_not_verify():
    _pipeline_using(value_of_other_region=False).verify()
    with pytest.raises(VerifyException, match=r"operand #0 of 'arith\.addi' in the"):
        _pipeline_using(value_of_other_region=True).verify()


@pytest.mark.parametrize(
    ("bounds", "stages", "message"),
    [
        ("%c0 to %n step %c1", 1000, "500500 copies"),
        ("%c0 to %big step %c1", 1000000, "1000000 copies"),
        ("%min to %max step %huge", 4, "overflows the 64-bit index type"),
    ],
    ids=["dynamic", "static", "overflow"],
)
def test_limits_fail_fast_and_leave_the_ir_alone(
    bounds: str, stages: int, message: str
):
    source = f"""
    func.func @f(%n: index) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %big = arith.constant 1000000000000 : index
      %min = arith.constant -9223372036854775808 : index
      %max = arith.constant 9223372036854775807 : index
      %huge = arith.constant 4611686018427387904 : index
      pypto.pipeline %i = {bounds} stages {stages} {{
        "test.op"(%i) : (index) -> ()
      }}
      func.return
    }}
    """
    module = parse_module(pypto_context(allow_unregistered=True), source)
    before = print_ir(module)
    start = time.perf_counter()
    with pytest.raises(PassFailedException, match=message):
        LowerPipelineLoopsPass().apply(CTX, module)
    # A hang guard, not a benchmark: the check comes before any op is built.
    assert time.perf_counter() - start < 5
    assert print_ir(module) == before
    check_integrity(module)


def test_max_copies_is_an_option():
    source = """
    func.func @f(%n: index) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      pypto.pipeline %i = %c0 to %n step %c1 stages 8 {
        "test.op"(%i) : (index) -> ()
      }
      func.return
    }
    """
    ctx = pypto_context(allow_unregistered=True)
    with pytest.raises(PassFailedException, match="36 copies"):
        LowerPipelineLoopsPass(max_copies=35).apply(ctx, parse_module(ctx, source))
    module = parse_module(ctx, source)
    apply_checked(LowerPipelineLoopsPass(max_copies=36), ctx, module)


def test_too_deep_to_verify_is_a_diagnostic():
    """A nest xDSL's recursive verifier cannot walk: a diagnostic, not a crash."""
    module = parse_module(CTX, nested_loops(50), "k.mlir")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(150)
    try:
        with pytest.raises(VerifyException, match="nested too deeply to verify"):
            verify_module(module)
    finally:
        sys.setrecursionlimit(limit)


def test_an_unterminated_string_does_not_hang_the_lexer():
    """xDSL 0.75's string pattern backtracks 2^n times on this line (n = 60)."""
    source = 'func.func @f(%x: !p"ypto.tensor<1024x8xf32>, %n0: index) -> (f32) {\n}\n'
    start = time.perf_counter()
    with pytest.raises(ParseError):
        parse_module(CTX, source, "k.mlir")
    # A hang guard, not a benchmark: xDSL's own lexer takes minutes.
    assert time.perf_counter() - start < 5


def test_nested_pipelines_are_checked_once():
    """
    The outermost pipeline checks the whole nest: one walk, not one per
    level; `verify_module`, which checks the whole module's dominance, none.
    """
    depth = 100
    opening = "".join(
        f"pypto.pipeline %i{k} = %c0 to %c2 step %c1 stages 4 {{\n"
        for k in range(depth)
    )
    source = (
        "func.func @f(%x: !pypto.tensor<16xf32>) {\n"
        "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
        "%c2 = arith.constant 2 : index\n"
        + opening
        + "%t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> "
        "!pypto.tile<8xf32, vec>\n" + "}\n" * depth + "func.return\n}\n"
    )
    module = parse_module(CTX, source, "k.mlir")
    visits = 0
    check = PipelineOp._verify_dominance  # pyright: ignore[reportPrivateUsage]

    def counting(self: PipelineOp) -> None:
        nonlocal visits
        visits += 1
        check(self)

    PipelineOp._verify_dominance = counting  # pyright: ignore[reportPrivateUsage]
    try:
        module.verify()
        verify_module(module)
    finally:
        PipelineOp._verify_dominance = check  # pyright: ignore[reportPrivateUsage]
    assert visits == 1


# --------------------------------------------------------------------------- #
# Huge integers (issue 26): messages abbreviate them, never fail to print them
# --------------------------------------------------------------------------- #

HUGE = 16**4000 - 1
"""A hex literal of 4,000 digits: 4,817 decimal digits, more than Python prints."""
HUGE_TEXT = "301946...(4,817 digits)"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (-(10**24) + 1, "-" + "9" * 24),
        (10**24, "100000...(25 digits)"),
        (-(10**24), "-100000...(25 digits)"),
        (10**4300 - 1, "999999...(4,300 digits)"),
        (10**4300, "100000...(4,301 digits)"),
        (HUGE, HUGE_TEXT),
    ],
    ids=["zero", "24-digits", "25-digits", "negative", "4300", "4301", "huge"],
)
def test_integer_text_abbreviates_past_24_digits(value: int, text: str):
    assert integer_text(value) == text


STAGES = """
func.func @f() {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages {stages} {{
  }}
  func.return
}}
"""
MEMBERSHIP = """
func.func @f(%x: !pypto.tensor<16xf32>) {{
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0] {{pypto.pipeline_membership = #pypto.membership<{pair}>}} : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  func.return
}}
"""


@pytest.mark.parametrize(
    ("source", "message"),
    [
        (
            STAGES.format(stages=hex(HUGE)),
            f"stages {HUGE_TEXT} does not fit in a 64-bit integer",
        ),
        (
            MEMBERSHIP.format(pair=f"{hex(HUGE)}:0"),
            f"membership group {HUGE_TEXT} is larger than 9223372036854775807",
        ),
        (
            MEMBERSHIP.format(pair="0:9223372036854775808"),
            "membership stage 9223372036854775808 is larger than 9223372036854775807",
        ),
    ],
    ids=["stages", "membership", "membership-past-63-bits"],
)
def test_huge_literals_under_xdsls_parser_are_worded(source: str, message: str):
    """Stock `xdsl-opt` parses with xDSL's lexer, which takes hex literals of any size."""
    with pytest.raises(ParseError) as info:
        Parser(CTX, source).parse_module()
    assert info.value.msg == message


def test_huge_integers_in_verifier_messages():
    with pytest.raises(VerifyException, match=re.escape(f"got ({HUGE_TEXT}, 0)")):
        MembershipAttr([(HUGE, 0)])
    with pytest.raises(
        VerifyException,
        match=re.escape(f"at most 9223372036854775807 (64-bit), got {HUGE_TEXT}x4"),
    ):
        TensorType([HUGE, 4], f32)
    offset = arith.ConstantOp(IntegerAttr(HUGE, IndexType()))
    with pytest.raises(VerifyException) as info:
        verify_offsets_in_bounds([offset.result], [8], [16], "load")
    assert str(info.value) == (
        f"window [{HUGE_TEXT}, {HUGE_TEXT}) is out of bounds of dimension 0 of size 16"
    )


# --------------------------------------------------------------------------- #
# Run-time errors in deep nests (issue 26's campaign)
# --------------------------------------------------------------------------- #


def loops_around_a_bad_load(depth: int) -> str:
    """`depth` nested `scf.for` loops of one iteration around a load out of bounds."""
    loops = "".join(f"scf.for %i{k} = %c0 to %c1 step %c1 {{\n" for k in range(depth))
    return (
        "func.func @deep(%x: !pypto.tensor<16xf32>) {\n"
        "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
        "%c12 = arith.constant 12 : index\n"
        + loops
        + "%t = pypto.tile.load %x[%c12] : !pypto.tensor<16xf32> -> "
        "!pypto.tile<8xf32, vec>\n" + "}\n" * depth + "func.return\n}\n"
    )


def test_a_run_time_error_in_a_deep_nest_is_attached_once():
    """
    xDSL attached the error to every loop around the failing op, printing the
    module each time: quadratic, and a RecursionError (an internal error of
    pypto-run) in a nest of 100 loops (as deep as the parser reads).
    """
    module = parse_module(CTX, loops_around_a_bad_load(120), "deep.mlir")
    inputs = {"x": np.zeros(16, np.float32)}
    # On xDSL's public API alone (pypto_dialect.xdsl_internals) the error is
    # printed at every loop again, past Python's stack: still a diagnostic.
    expected = "window" if fast_paths_enabled() else "window|nested too deeply to run"
    with pytest.raises(InterpretationError, match=expected) as info:
        run_kernel(module, "deep", inputs)
    notes = len(getattr(info.value, "__notes__", []))
    assert notes == 1 if fast_paths_enabled() else notes <= 1


def test_a_nest_too_deep_to_interpret_is_an_interpretation_error():
    """A nest deeper than Python's stack (parsed here under a raised limit)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20 * limit)
    try:
        module = parse_module(CTX, loops_around_a_bad_load(2 * limit), "deep.mlir")
    finally:
        sys.setrecursionlimit(limit)
    inputs = {"x": np.zeros(16, np.float32)}
    with pytest.raises(InterpretationError, match="nested too deeply to run"):
        run_kernel(module, "deep", inputs)
