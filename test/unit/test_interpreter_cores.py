"""
The two-core interpreter (`pypto_dialect/interpreter/cores.py`): generated
cube and vector kernel pairs run skewed against unskewed, bit for bit; a
deadlock, a full FIFO and a FIFO-order bug are caught, never a hang.
"""

from __future__ import annotations

from contextlib import redirect_stderr
from dataclasses import dataclass
from io import StringIO

import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from xdsl.dialects.builtin import ModuleOp
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.utils.exceptions import InterpretationError

from passes.mechanisms.skew import Skew, skew_loop
from passes.skew_cross_core_pipeline import SkewCrossCorePipelinePass
from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context
from pypto_dialect.interpreter import compare_runs, find_kernel, random_inputs
from pypto_dialect.interpreter.cores import GroupRun, run_group
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.walks import block_ops

TILE = "!pypto.tile<4x8xf32, vec>"
TENSOR = "!pypto.tensor<64x8xf32>"


@dataclass(frozen=True)
class Pair:
    """A generated cube kernel and its vector kernel, talking in a loop each."""

    cube_stages: int
    vector_stages: int
    lb: int
    trip: int
    step: int
    round_trips: int
    fifo_depth: int
    carried: bool
    dynamic: bool
    independent: bool = False
    """Every message of the cube is computed from its load (no push needs a pop)."""
    idle_pops: bool = False
    """The vector's pushes are computed from its loads alone (its pops feed nothing)."""

    @property
    def ub(self) -> int:
        return self.lb + self.trip * self.step

    def header(self) -> str:
        ub = "%n" if self.dynamic else f"%c{self.ub}"
        return f"%c{self.lb} to {ub} step %c{self.step}"

    def constants(self) -> str:
        values = sorted({0, 4, self.lb, self.ub, self.step})
        return "\n".join(f"  %c{v} = arith.constant {v} : index" for v in values)

    def cube(self) -> str:
        body = [
            "%row = arith.muli %i, %c4 : index",
            f"%qa = pypto.tile.load %q[%row, %c0] : {TENSOR} -> {TILE}",
            f"%p0 = pypto.tile.add %qa, %qa : {TILE}",
        ]
        for trip in range(self.round_trips):
            if trip:
                source = "%qa" if self.independent else f"%e{trip - 1}"
                body.append(f"%p{trip} = pypto.tile.add {source}, {source} : {TILE}")
            body += [
                f"pypto.tile.tpush_to_aiv %p{trip} : {TILE}",
                f"%e{trip} = pypto.tile.tpop_from_aiv : {TILE}",
            ]
        last = f"%e{self.round_trips - 1}"
        body += [
            f"%oi = pypto.tile.mul {last}, {last} : {TILE}",
            "%row2 = arith.muli %i, %c4 : index",
            f"pypto.tile.store %oi, %out[%row2, %c0] : {TILE}, {TENSOR}",
        ]
        attributes = f"attributes {{pypto.vector_kernel = @vec, pypto.fifo_depth = {self.fifo_depth} : i64}}"
        if self.carried:
            body += [
                f"%acc2 = pypto.tile.add %acc, %oi : {TILE}",
                f"pypto.yield %acc2 : {TILE}",
            ]
            loop = (
                f"%r = pypto.pipeline %i = {self.header()} stages {self.cube_stages} "
                f"iter_args(%acc = %acc0) -> ({TILE}) {{"
            )
            result = "%r"
        else:
            loop = f"pypto.pipeline %i = {self.header()} stages {self.cube_stages} {{"
            result = "%acc0"
        inner = "\n".join(f"    {line}" for line in body)
        return f"""
func.func @cube(%q: {TENSOR}, %out: {TENSOR}, %acc0: {TILE}, %n: index) -> {TILE} {attributes} {{
{self.constants()}
  {loop}
{inner}
  }}
  func.return {result} : {TILE}
}}
"""

    def vector(self) -> str:
        body = ["%row = arith.muli %i, %c4 : index"]
        for trip in range(self.round_trips):
            body += [
                f"%s{trip} = pypto.tile.tpop_from_aic : {TILE}",
                f"%w{trip} = pypto.tile.load %w[%row, %c0] : {TENSOR} -> {TILE}",
                f"%c{trip}v = pypto.tile.sub {'%w' if self.idle_pops else '%s'}{trip}, %w{trip} : {TILE}",
                f"pypto.tile.tpush_to_aic %c{trip}v : {TILE}",
            ]
        inner = "\n".join(f"    {line}" for line in body)
        return f"""
func.func @vec(%w: {TENSOR}, %n: index) {{
{self.constants()}
  pypto.pipeline %i = {self.header()} stages {self.vector_stages} {{
{inner}
  }}
  func.return
}}
"""

    def text(self) -> str:
        return self.cube() + self.vector()


def pairs() -> st.SearchStrategy[Pair]:
    return st.builds(
        Pair,
        cube_stages=st.integers(1, 8),
        vector_stages=st.integers(1, 3),
        lb=st.integers(0, 2),
        trip=st.integers(0, 9),
        step=st.integers(1, 2),
        round_trips=st.integers(1, 2),
        fifo_depth=st.integers(1, 4),
        carried=st.booleans(),
        dynamic=st.booleans(),
        independent=st.booleans(),
        idle_pops=st.booleans(),
    ).filter(lambda pair: pair.ub <= 16)


def parse_group(text: str) -> ModuleOp:
    """`text` parsed and checked as a module with its kernel groups (`verify_module`)."""
    module = parse_module(pypto_context(), text, "pair.mlir")
    verify_module(module)
    return module


def run(pair: Pair, module: ModuleOp, seed: int) -> GroupRun:
    cube = random_inputs(find_kernel(module, "cube"), seed, {"n": pair.ub})
    vector = random_inputs(find_kernel(module, "vec"), seed + 1, {"n": pair.ub})
    return run_group(module, "cube", cube, vector)


def assert_same(before: GroupRun, after: GroupRun) -> None:
    assert compare_runs(before.cube, after.cube) == []
    assert compare_runs(before.vector, after.vector) == []
    assert before.channels.keys() == after.channels.keys()


@given(pairs(), st.integers(0, 2**16), st.booleans(), st.booleans())
# Depth 3 asked, FIFOs of 2: the skew must stay within the FIFO's depth.
@example(Pair(4, 1, 0, 6, 1, 1, 2, False, False), 0, False, False)
@example(Pair(4, 1, 0, 6, 1, 1, 2, False, True), 0, True, False)
# Two round trips run ahead together, FIFOs of 4 (depth 2) and of 2 (depth 1).
@example(Pair(4, 1, 0, 6, 1, 2, 4, True, False, True), 0, False, True)
@example(Pair(4, 1, 0, 6, 1, 2, 2, False, True, True), 0, True, True)
# A sequential cube waits for each answer: the vector's pops cannot run ahead.
@example(Pair(1, 2, 0, 4, 1, 1, 2, False, False, idle_pops=True), 0, False, False)
def test_skewed_pairs_match_unskewed(
    pair: Pair, seed: int, dynamic: bool, group: bool
) -> None:
    before = run(pair, parse_group(pair.text()), seed)
    module = parse_group(pair.text())
    SkewCrossCorePipelinePass(dynamic=dynamic, group=group).apply(
        pypto_context(), module
    )
    verify_module(module)
    assert not any(isinstance(op, PipelineOp) for op in module.walk())
    assert_same(before, run(pair, module, seed))


def test_a_pop_no_push_answers_is_a_deadlock() -> None:
    pair = Pair(1, 1, 0, 3, 1, 1, 2, False, False)
    text = pair.text().replace(
        f"%s0 = pypto.tile.tpop_from_aic : {TILE}",
        f"%s0 = pypto.tile.tpop_from_aic : {TILE}\n    %x = pypto.tile.tpop_from_aic : {TILE}",
    )
    with pytest.raises(InterpretationError, match="deadlock: @cube waits at") as caught:
        run(pair, parse_group(text), 0)
    message = str(caught.value)
    assert "pypto.tile.tpop_from_aiv (pair.mlir:" in message
    assert "@vec waits at pypto.tile.tpop_from_aic (pair.mlir:" in message


def test_both_cores_pushing_into_full_fifos_is_a_deadlock() -> None:
    pair = Pair(1, 1, 0, 3, 1, 1, 1, False, False)
    text = pair.text().replace(
        f"pypto.tile.tpush_to_aiv %p0 : {TILE}",
        f"pypto.tile.tpush_to_aiv %p0 : {TILE}\n    pypto.tile.tpush_to_aiv %p0 : {TILE}",
    )
    text = text.replace(
        f"%s0 = pypto.tile.tpop_from_aic : {TILE}",
        f"pypto.tile.tpush_to_aic %row_t : {TILE}\n    %s0 = pypto.tile.tpop_from_aic : {TILE}",
    ).replace(
        "%row = arith.muli %i, %c4 : index\n    pypto.tile.tpush_to_aic",
        f"%row = arith.muli %i, %c4 : index\n    %row_t = pypto.tile.load %w[%row, %c0] : {TENSOR} -> {TILE}\n    pypto.tile.tpush_to_aic",
    )
    with pytest.raises(InterpretationError, match="room in the full aic_to_aiv FIFO"):
        run(pair, parse_group(text), 0)


def test_a_failing_core_stops_its_peer() -> None:
    pair = Pair(1, 1, 0, 3, 1, 1, 2, False, False)
    module = parse_group(pair.text())
    cube = random_inputs(find_kernel(module, "cube"), 0)
    vector = random_inputs(find_kernel(module, "vec"), 1)
    with pytest.raises(InterpretationError, match="iterations"):
        run_group(module, "cube", cube, vector, max_iterations=2)


@pytest.mark.parametrize("trip", [4, 5])
def test_skewing_only_the_lead_message_is_caught(trip: int) -> None:
    """
    What PyPTO declines: a loop of two round trips with only its first push
    run ahead. The peer then pops the second message where it expects the
    first: the interpreter sees wrong data or a deadlock.
    """
    pair = Pair(2, 1, 0, trip, 1, 2, 4, False, False)
    before = run(pair, parse_group(pair.text()), 7)
    module = parse_group(pair.text())
    cube = find_kernel(module, "cube")
    (loop,) = [op for op in cube.walk() if isinstance(op, PipelineOp)]
    body = block_ops(loop.body.block)[:-1]
    lead = 4  # %row, %qa, %p0, the first push
    skew = Skew(body[:lead], body[lead:], 1, 1, (0, trip))
    skew_loop(loop, skew, PatternRewriter(loop), lambda _, __: None)
    verify_module(module)
    try:
        after = run(pair, module, 7)
    except InterpretationError as error:
        assert "deadlock" in str(error)
        return
    assert compare_runs(before.cube, after.cube) != []


@pytest.mark.parametrize(("fifo_depth", "depth"), [(4, 2), (2, 1)])
def test_a_fifo_group_runs_ahead_together(fifo_depth: int, depth: int) -> None:
    """
    `group=true`: both pushes of a two-round-trip loop run ahead, each FIFO
    in its order; D is at most the FIFO depth over the two messages.
    """
    pair = Pair(4, 1, 0, 6, 1, 2, fifo_depth, False, False, True)
    before = run(pair, parse_group(pair.text()), 3)
    module = parse_group(pair.text())
    stderr = StringIO()
    with redirect_stderr(stderr):
        SkewCrossCorePipelinePass(group=True, explain=True).apply(
            pypto_context(), module
        )
    verify_module(module)
    assert f"@cube: pypto.pipeline over %i, stages 4: skewed: depth {depth} " in (
        stderr.getvalue()
    )
    assert "2 pushes and 2 pops together" in stderr.getvalue()
    assert_same(before, run(pair, module, 3))


def test_a_push_that_needs_a_pop_keeps_the_group_sequential() -> None:
    pair = Pair(4, 1, 0, 6, 1, 2, 4, False, False)
    module = parse_group(pair.text())
    stderr = StringIO()
    with redirect_stderr(stderr):
        SkewCrossCorePipelinePass(group=True, explain=True).apply(
            pypto_context(), module
        )
    assert (
        "@cube: pypto.pipeline over %i, stages 4: demoted: a push needs %e0, "
        "popped in the same iteration: the FIFO group cannot run ahead"
    ) in stderr.getvalue()
