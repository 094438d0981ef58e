"""
Mutation fuzzing: on any input text, only diagnostics escape parsing,
verification and the passes, and every step is quick.

Each mutant (`mutations.mutants()`: a generated kernel, custom or generic
form, with a few mutations) runs through parse, verify, then
`lower-pipeline-loops`, verify, `canonicalize-io-order`, verify;
`canonicalize-io-order` alone on the parsed module, verify; and the three
passes, `lower-pipeline-to-slots` first, each followed by verify. A step may raise
`ParseError` or a `DiagnosticException` (which ends the chain; the
canonicalize-alone chain still runs after a lowering failure); anything else
fails the test with its traceback and the mutant, as do a pass's output that
does not verify, a step taking more than `STEP_SECONDS` and a mutant taking
more than `HANG_SECONDS` (a `SIGALRM`).

The outcomes are hypothesis events (`--hypothesis-show-statistics`): the
step that reported a diagnostic (`parse error`, `verify error`), else, for
each chain (`chained:` both passes, `alone:` canonicalize-io-order alone,
`slots:` the three passes),
`accepted` or the pass that reported one.

A hypothesis run stops at its first failure; to count failures over a long
campaign, `python test/unit/test_mutations.py EXAMPLES SEED` runs the same
mutants without stopping and prints the outcomes and each kind of failure
with its shortest mutant (`docs/testing.md` has the commands).
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
import traceback
from collections import Counter
from collections.abc import Callable, Generator
from contextlib import contextmanager
from functools import partial
from types import FrameType
from typing import TypeVar

from hypothesis import HealthCheck, Phase, event, given, seed, settings
from mutations import Mutant, mutants
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException, ParseError

from passes.canonicalize_io_order import CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from pypto_dialect.checked import parse_module, verify_module
from pypto_dialect.context import pypto_context

CONTEXT = pypto_context()
SLOTS = LowerPipelineToSlotsPass()
LOWER = LowerPipelineLoopsPass()
CANONICALIZE = CanonicalizeIOOrderPass()
DIAGNOSTICS = (ParseError, DiagnosticException)

_T = TypeVar("_T")
STEP_SECONDS = 5.0
"""A hang guard with room for a loaded machine, not a benchmark."""
HANG_SECONDS = 20
"""The alarm that interrupts a mutant that really hangs."""


class Hang(BaseException):
    """Raised by the alarm; a `BaseException`, so that no `except Exception` eats it."""


def _alarm(signum: int, frame: FrameType | None) -> None:
    """
    Raise `Hang`, unless in hypothesis's code: an exception of its garbage
    collector callback is lost (and reported as unraisable); the timer fires
    again a second later.
    """
    if frame is not None and f"{os.sep}hypothesis{os.sep}" in frame.f_code.co_filename:
        return
    raise Hang(f"the mutant took more than {HANG_SECONDS} s")


@contextmanager
def alarm_after(seconds: float) -> Generator[None]:
    """
    Raise `Hang` in the block if it runs longer than `seconds` (checked
    again every second after, see `_alarm`).
    """
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class Rejected(Exception):
    """A step reported a diagnostic; `step` names it."""

    def __init__(self, step: str):
        super().__init__(step)
        self.step = step


def timed(step: str, action: Callable[[], _T]) -> _T:
    """Run `action`, check its time; a diagnostic becomes `Rejected(step)`."""
    start = time.perf_counter()
    try:
        result = action()
    except DIAGNOSTICS as error:
        check_time(step, start)
        raise Rejected(step) from error
    check_time(step, start)
    return result


def check_time(step: str, start: float) -> None:
    seconds = time.perf_counter() - start
    assert seconds < STEP_SECONDS, f"{step} took {seconds:.1f} s"


def run_passes(module: ModuleOp, passes: tuple[ModulePass, ...]) -> str:
    """
    Apply each pass in turn and verify its output; return the outcome. The
    input verified, so an output that does not is a bug (of the pass, or a
    hole in the verifier), not a diagnostic.
    """
    for pass_ in passes:
        try:
            timed(pass_.name, partial(pass_.apply, CONTEXT, module))
        except Rejected as rejected:
            return f"{rejected.step} error"
        try:
            timed(f"verify after {pass_.name}", lambda: verify_module(module))
        except Rejected as rejected:
            message = f"the output of {pass_.name} does not verify"
            raise AssertionError(message) from rejected.__cause__
    return "accepted"


def run_mutant(text: str) -> list[str]:
    """Run every step on `text`; return the outcomes (events)."""
    try:
        module = timed("parse", lambda: parse_module(CONTEXT, text, "mutant"))
        timed("verify", lambda: verify_module(module))
    except Rejected as rejected:
        return [f"{rejected.step} error"]
    alone, rotated = module.clone(), module.clone()
    return [
        f"chained: {run_passes(module, (LOWER, CANONICALIZE))}",
        f"alone: {run_passes(alone, (CANONICALIZE,))}",
        f"slots: {run_passes(rotated, (SLOTS, LOWER, CANONICALIZE))}",
    ]


def describe(mutant: Mutant) -> str:
    form = "generic" if mutant.generic else "custom"
    return f"mutations {', '.join(mutant.mutations)} of the {form} form:\n{mutant.text}"


@settings(phases=[phase for phase in Phase if phase is not Phase.explain])
@given(mutants())
def test_only_diagnostics_escape(mutant: Mutant):
    """
    A failure keeps its own type and traceback (so that hypothesis reports
    distinct bugs separately), with the mutant added as a note. No explain
    phase: it traces every line, which makes a slow step a hang on replay.
    """
    try:
        with alarm_after(HANG_SECONDS):
            outcomes = run_mutant(mutant.text)
    except Hang as hang:
        raise AssertionError(f"{hang}: {describe(mutant)}") from hang
    except Exception as error:
        error.add_note(describe(mutant))
        raise
    for outcome in outcomes:
        event(outcome)


def failure_kind(error: BaseException) -> str:
    """The type, the innermost frame and the message's first line, numbers elided."""
    frame = traceback.extract_tb(error.__traceback__)[-1]
    message = re.sub(r"\d+(\.\d+)?", "N", str(error).partition("\n")[0])
    return f"{type(error).__name__} at {frame.filename}:{frame.lineno}: {message}"


def campaign(examples: int, seed_value: int) -> None:
    """Run `examples` mutants, never stopping; print outcomes and failures."""
    outcomes: Counter[str] = Counter()
    failures: dict[str, list[tuple[Mutant, str]]] = {}

    @settings(
        max_examples=examples,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(mutants())
    def run(mutant: Mutant) -> None:
        outcomes["mutants"] += 1
        try:
            with alarm_after(HANG_SECONDS):
                outcomes.update(run_mutant(mutant.text))
        except (Exception, Hang) as error:
            outcomes["failures"] += 1
            found = failures.setdefault(failure_kind(error), [])
            found.append((mutant, traceback.format_exc()))

    start = time.perf_counter()
    seed(seed_value)(run)()
    print(f"{time.perf_counter() - start:.0f} s")
    for outcome, count in outcomes.most_common():
        print(f"{count:7} {outcome}")
    for kind, found in sorted(failures.items(), key=lambda item: -len(item[1])):
        mutant, trace = min(found, key=lambda pair: len(pair[0].text))
        print(f"\n=== {len(found)} x {kind}\n{trace}\n{describe(mutant)}")


if __name__ == "__main__":
    campaign(int(sys.argv[1]), int(sys.argv[2]))
