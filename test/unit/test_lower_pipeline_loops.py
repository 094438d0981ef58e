"""The `lower-pipeline-loops` pass through its Python API."""

from __future__ import annotations

import gc
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from corpus import parsed, sound_inputs
from helpers import parse, print_ir
from ir_integrity import apply_checked, check_integrity
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp, UnknownLoc
from xdsl.utils.exceptions import PassFailedException, VerifyException

from passes.lower_pipeline_loops import _TYPE_ONLY, LowerPipelineLoopsPass  # pyright: ignore[reportPrivateUsage]
from passes.mechanisms.unroll import REMAINDERS, Remainder, body_copies, index_constant
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import find_kernel, parameter_names, run_kernel
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import clone_op, discard

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.mlir"))


def lower(module: ModuleOp, remainder: Remainder = "cascade") -> ModuleOp:
    apply_checked(LowerPipelineLoopsPass(remainder=remainder), pypto_context(), module)
    return module


@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_examples_lower_verify_and_round_trip(path: Path):
    lowered = print_ir(lower(parse(path.read_text())))
    assert "stages 1" in lowered
    assert MEMBERSHIP_ATTR_NAME in lowered
    assert print_ir(parse(lowered)) == lowered
    assert print_ir(parse(print_ir(parse(lowered), generic=True))) == lowered


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("path", EXAMPLES, ids=[path.stem for path in EXAMPLES])
def test_examples_idempotent(path: Path, remainder: Remainder):
    once = lower(parse(path.read_text()), remainder)
    printed = print_ir(once)
    assert print_ir(lower(once, remainder)) == printed


def test_api_tags_copies():
    module = lower(
        parse(
            """
            func.func @f(%x: !pypto.tensor<1024xf32>) {
              %c0 = arith.constant 0 : index
              %c1 = arith.constant 1 : index
              %c3 = arith.constant 3 : index
              pypto.pipeline %i = %c0 to %c3 step %c1 stages 2 {
                %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
                pypto.tile.tpush_to_aiv %t : !pypto.tile<128xf32, vec>
              }
              func.return
            }
            """
        )
    )
    memberships = [
        op.attributes[MEMBERSHIP_ATTR_NAME]
        for op in module.walk()
        if MEMBERSHIP_ATTR_NAME in op.attributes
    ]
    assert memberships == [
        MembershipAttr([(0, 0)]),
        MembershipAttr([(0, 1)]),
        MembershipAttr([(1, 0)]),
    ]
    pipelines = [op for op in module.walk() if isinstance(op, PipelineOp)]
    assert [pipeline.num_stages for pipeline in pipelines] == [1]


@pytest.mark.parametrize(
    ("step", "message"),
    [
        ("%n", "step must be a compile-time integer constant"),
        ("%c0", "step cannot be zero"),
        ("%cm2", "negative steps are not supported"),
    ],
)
def test_api_bad_step_raises_diagnostic(step: str, message: str):
    module = parse(
        f"""
        func.func @f(%n: index) {{
          %c0 = arith.constant 0 : index
          %cm2 = arith.constant -2 : index
          pypto.pipeline %i = %c0 to %n step {step} stages 2 {{
          }}
          func.return
        }}
        """
    )
    before = print_ir(module)
    with pytest.raises(PassFailedException, match=message):
        LowerPipelineLoopsPass().apply(pypto_context(), module)
    assert print_ir(module) == before
    check_integrity(module)


# --------------------------------------------------------------------------- #
# Results are unchanged: run scalar kernels before and after the pass
# --------------------------------------------------------------------------- #


def run(module: ModuleOp, *args: int) -> tuple[int, ...]:
    """The results of `@kernel` called with the `index` arguments `args`."""
    kernel = find_kernel(module, "kernel")
    named = dict(zip(parameter_names(kernel), args, strict=True))
    return tuple(int(result) for result in run_kernel(module, "kernel", named).results)


def hash_kernel(lb: int | None, ub: int | None, step: int, stages: int) -> str:
    """
    Folds the visited indices, in order, into a hash and counts them; `None`
    bounds are the function arguments.
    """
    lb_value = "%lb_arg" if lb is None else "%lb"
    ub_value = "%ub_arg" if ub is None else "%ub"
    return f"""
    func.func @kernel(%lb_arg: index, %ub_arg: index) -> (index, index) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c7 = arith.constant 7 : index
      %lb = arith.constant {lb or 0} : index
      %ub = arith.constant {ub or 0} : index
      %step = arith.constant {step} : index
      %h, %n = pypto.pipeline %i = {lb_value} to {ub_value} step %step stages {stages}
          iter_args(%a = %c0, %count = %c0) -> (index, index) {{
        %scaled = arith.muli %a, %c7 : index
        %mixed = arith.addi %scaled, %i : index
        %more = arith.addi %count, %c1 : index
        pypto.yield %mixed, %more : index, index
      }}
      func.return %h, %n : index, index
    }}
    """


def expected(lb: int, ub: int, step: int) -> tuple[int, int]:
    visited = range(lb, ub, step)
    h = 0
    for index in visited:
        h = h * 7 + index
    return h, len(visited)


BOUNDS = [(lb, lb + extent) for lb in (-3, 5) for extent in range(-2, 12)]


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("step", [1, 2, 3])
def test_dynamic_bounds_keep_results(step: int, stages: int, remainder: Remainder):
    lowered = lower(parse(hash_kernel(None, None, step, stages)), remainder)
    for lb, ub in BOUNDS:
        assert run(lowered, lb, ub) == expected(lb, ub, step), (lb, ub)


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("stages", [2, 3, 4])
@pytest.mark.parametrize("step", [1, 3])
def test_static_bounds_keep_results(step: int, stages: int, remainder: Remainder):
    for lb, ub in BOUNDS:
        module = parse(hash_kernel(lb, ub, step, stages))
        assert run(module, 0, 0) == expected(lb, ub, step)
        lowered = lower(module, remainder)
        assert run(lowered, 0, 0) == expected(lb, ub, step), (lb, ub)


@pytest.mark.parametrize("remainder", REMAINDERS)
def test_nested_pipelines_keep_results(remainder: Remainder):
    source = """
    func.func @kernel(%n: index, %m: index) -> index {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c2 = arith.constant 2 : index
      %c5 = arith.constant 5 : index
      %c7 = arith.constant 7 : index
      %h = pypto.pipeline %i = %c0 to %c5 step %c1 stages 2 iter_args(%a = %c0) -> (index) {
        %inner = pypto.pipeline %j = %m to %n step %c2 stages 3 iter_args(%b = %a) -> (index) {
          %scaled = arith.muli %b, %c7 : index
          %ij = arith.muli %i, %n : index
          %mixed = arith.addi %scaled, %ij : index
          %next = arith.addi %mixed, %j : index
          pypto.yield %next : index
        }
        pypto.yield %inner : index
      }
      func.return %h : index
    }
    """
    original = parse(source)
    lowered = lower(parse(source), remainder)
    for n in range(-1, 9):
        for m in (-2, 0, 1):
            assert run(lowered, n, m) == run(original, n, m), (n, m)


def marked_kernel(stages: int, trip: int | None) -> str:
    """
    A loop whose body is one `arith.xori`, from 0 to `trip` (None: to the
    argument `%n`): the lowering's output holds one `arith.xori` per copy.
    """
    ub = "%n" if trip is None else "%ub"
    return f"""
    func.func @kernel(%n: index) {{
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %ub = arith.constant {trip or 0} : index
      pypto.pipeline %i = %c0 to {ub} step %c1 stages {stages} {{
        %marked = arith.xori %i, %c1 : index
      }}
      func.return
    }}
    """


@pytest.mark.parametrize("remainder", REMAINDERS)
@pytest.mark.parametrize("trip", [None, 0, 1, 2, 3, 7, 8, 9, 15, 63, 64, 65])
@pytest.mark.parametrize("stages", [2, 3, 8, 16, 64])
def test_body_copies_counts_the_copies_emitted(
    stages: int, trip: int | None, remainder: Remainder
):
    """
    `body_copies` (what `max-copies` limits) is the number of copies of the
    body in the output; with `remainder=loop`, at most F + 1 (the issue's target).
    """
    module = parse(marked_kernel(stages, trip))
    unlimited = LowerPipelineLoopsPass(max_copies=4096, remainder=remainder)
    apply_checked(unlimited, pypto_context(), module)
    copies = Counter(op.name for op in walk_ops(module))["arith.xori"]
    # trip 0: the loop, demoted, keeps its body; no copy is made
    assert copies == (body_copies(stages, trip, remainder) if trip != 0 else 1)
    if remainder == "loop":
        assert copies <= stages + 1


def test_api_bad_remainder_raises_diagnostic():
    module = parse(marked_kernel(2, None))
    bad = LowerPipelineLoopsPass(remainder="tail")  # pyright: ignore[reportArgumentType]
    with pytest.raises(PassFailedException, match="one of cascade, loop, got 'tail'"):
        bad.apply(pypto_context(), module)


def test_copy_zero_of_the_main_loop_is_the_original_body():
    """The main loop keeps the original ops as copy 0 and clones F-1 copies."""
    module = parse(
        (Path(__file__).parents[2] / "examples" / "add_one.mlir").read_text()
    )
    loop = next(op for op in module.walk() if isinstance(op, PipelineOp))
    originals = list(loop.body.block.ops)[:-1]
    lower(module)
    (main,) = (op for op in module.walk() if isinstance(op, PipelineOp))
    body = list(main.body.block.ops)
    assert all(op.parent_block() is main.body.block for op in originals)
    assert body[: len(originals)] == originals
    load = next(op for op in originals if op.name == "pypto.tile.load")
    assert load.attributes[MEMBERSHIP_ATTR_NAME] == MembershipAttr([(0, 0)])


@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize("fails", [True, False])
def test_passes_restore_the_collector(enabled: bool, fails: bool):
    """Both passes pause the cyclic collector and restore its state, even on failure."""
    from passes.canonicalize_io_order import CanonicalizeIOOrderPass

    text = (Path(__file__).parents[2] / "examples" / "add_one.mlir").read_text()
    if fails:
        text = text.replace(
            "step %c1 stages 4", "step %c0 stages 4"
        )  # both passes fail
    was_enabled = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        for apply in (LowerPipelineLoopsPass(), CanonicalizeIOOrderPass()):
            module = parse(text)
            if fails:
                with pytest.raises(PassFailedException):
                    apply.apply(pypto_context(), module)
            else:
                LowerPipelineLoopsPass().apply(pypto_context(), module)
                apply.apply(pypto_context(), module)
            assert gc.isenabled() is enabled
    finally:
        (gc.enable if was_enabled else gc.disable)()


def _outcome(verify: Callable[[], None]) -> str | None:
    """The message `verify` raises, None if it passes."""
    try:
        verify()
    except VerifyException as error:
        return str(error)
    return None


def test_arith_copies_with_a_constant_verify_as_the_op_does():
    """
    The premise of the flattened iterations' check skipping `arith` ops
    (`_TYPE_ONLY`): an `arith` op whose `index` operand becomes an `index`
    constant, as in a flattened copy, verifies, or fails with the same
    message, as the op does. On every `arith` op of the corpus with an
    `index` operand, and on ops whose types break their definitions or their
    own verifiers (`index_cast`).
    """
    assert arith.MuliOp in _TYPE_ONLY and PipelineOp not in _TYPE_ONLY
    ops = [
        op
        for _, module in sound_inputs()
        for op in walk_ops(module)
        if type(op) in _TYPE_ONLY
    ]
    broken = parsed(
        """
        %a = "test.op"() : () -> index
        %b = "test.op"() : () -> i32
        %m = "arith.muli"(%a, %b) : (index, i32) -> index
        %n = "arith.addi"(%a, %a) : (index, index) -> i32
        %c = "arith.constant"() {value = 1 : i32} : () -> index
        %i = "arith.index_cast"(%a) : (index) -> index
        """
    )
    wrong = list(broken.body.block.ops)[2:]
    ops += wrong
    constant = index_constant(7, UnknownLoc())
    failed = checked = 0
    for op in ops:
        expected = _outcome(op.verify_)
        failed += expected is not None
        for operand in op.operands:
            if not isinstance(operand.type, IndexType):
                continue
            copy = clone_op(op, {operand: constant.result})
            try:
                assert _outcome(copy.verify_) == expected, op.name
            finally:
                discard(copy)
            checked += 1
    assert failed == len(wrong)  # the corpus is sound
    assert checked > 100  # the corpus's index arithmetic, not only the broken ops
