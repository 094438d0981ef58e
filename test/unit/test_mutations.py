"""
Mutation fuzzing: on any input text, only diagnostics escape reading,
parsing, verification and the passes, every step is quick, and no pass
changes what a kernel computes.

Each mutant (`mutations.mutants()`: a generated kernel, custom or generic
form, with a few mutations) is read as the tools read a file
(`decode_source`), then runs through parse, verify, then
`lower-pipeline-loops`, verify, `canonicalize-io-order`, verify;
`canonicalize-io-order` alone on the parsed module, verify; and the three
passes, `lower-pipeline-to-slots` first, each followed by verify. A step may raise
`ParseError` or a `DiagnosticException` (which ends the chain; the
canonicalize-alone chain still runs after a lowering failure); anything else
fails the test with its traceback and the mutant, as do a pass's output that
does not verify, a step taking more than `STEP_SECONDS` of CPU and a mutant
taking more than `HANG_SECONDS` of CPU (a `SIGVTALRM`).

The runs: a mutant that verifies is interpreted (`run_kernel`, seeded
inputs and the mutant's `index_args`, at most `RUN_BUDGET` loop iterations
and `RUN_ELEMENTS` elements per tensor); if that run succeeds, each chain
that goes through, and the module exported to PyPTO and imported again, must
give bit-identical outputs on the same inputs. A run that fails after but
not before, or differs, is a silent wrong result (`WrongResult`).

The outcomes are hypothesis events (`--hypothesis-show-statistics`): the
step that reported a diagnostic (`unreadable`, `parse error`, `verify
error`), else whether the kernel ran, the export, and for each chain
(`chained:` both passes, `remainder loop:` both with
`lower-pipeline-loops{remainder=loop}`, `alone:` canonicalize-io-order
alone, `slots:` the three passes, then one newer surface of
`surface_mutations`: an order with a cost table, the slots with one,
`auto-stages`, or `pypto-report`, whose internal errors fail and whose JSON
must be strict) `accepted` (`, same results` when checked against a run)
or the pass that reported one.

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
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Generator
from contextlib import contextmanager, redirect_stderr
from dataclasses import dataclass
from functools import partial
from io import StringIO
from pathlib import Path
from types import FrameType
from typing import TypeVar

import pytest
import surface_mutations as surfaces
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
from pypto_dialect.dsl import parse_pypto, print_pypto
from pypto_dialect.interpreter import (
    KernelArg,
    KernelRun,
    compare_runs,
    find_kernel,
    kernel_names,
    parameter_names,
    random_inputs,
    run_kernel,
)
from pypto_dialect.source_text import UnreadableInput, decode_source

CONTEXT = pypto_context()
SLOTS = LowerPipelineToSlotsPass()
LOWER = LowerPipelineLoopsPass()
LOWER_WITH_LOOP = LowerPipelineLoopsPass(remainder="loop")
CANONICALIZE = CanonicalizeIOOrderPass()
DIAGNOSTICS = (ParseError, DiagnosticException)

_T = TypeVar("_T")
STEP_SECONDS = 5.0
"""
The most CPU time a step may take: a guard against slow steps, not a
benchmark. CPU time, not wall time: on the shared machine (load 19 on 2
cores) a campaign of 1,000 mutants took 46 s of CPU in 784 s of wall, and
steps of 0.02-1.1 s of CPU took 5-7 s of wall.
"""
HANG_SECONDS = 20
"""
The alarm, in CPU time (as `STEP_SECONDS`), that interrupts a mutant that
really hangs: on the shared machine a niced campaign's mutant of 2.5 s of
CPU took over 20 s of wall.
"""
RUN_BUDGET = 2_000
"""Loop iterations and branches a run of a mutant may take (`max_iterations`)."""
RUN_ELEMENTS = 1 << 16
"""Elements a tensor or tile of a run may hold (`max_elements`)."""
PROGRESS = 500
"""A campaign prints its counts to stderr every `PROGRESS` mutants."""


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
    raise Hang(f"the mutant took more than {HANG_SECONDS} s of CPU")


@contextmanager
def alarm_after(seconds: float) -> Generator[None]:
    """
    Raise `Hang` in the block if it takes more than `seconds` of CPU
    (checked again every CPU second after, see `_alarm`).
    """
    previous = signal.signal(signal.SIGVTALRM, _alarm)
    signal.setitimer(signal.ITIMER_VIRTUAL, seconds, 1.0)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
        signal.signal(signal.SIGVTALRM, previous)


class Rejected(Exception):
    """A step reported a diagnostic; `step` names it."""

    def __init__(self, step: str):
        super().__init__(step)
        self.step = step


SAMPLE_SECONDS = 0.05
"""CPU time between two samples of where a step spends its time (`sampled`)."""


@contextmanager
def sampled() -> Generator[Counter[str]]:
    """
    Count, every `SAMPLE_SECONDS` of CPU (`SIGPROF`), the innermost frames
    the block is in: where a slow step spent its time.
    """
    samples: Counter[str] = Counter()

    def sample(signum: int, frame: FrameType | None) -> None:
        frames = traceback.extract_stack(frame, limit=3)
        samples[" < ".join(f"{f.name} ({f.filename}:{f.lineno})" for f in frames)] += 1

    previous = signal.signal(signal.SIGPROF, sample)
    signal.setitimer(signal.ITIMER_PROF, SAMPLE_SECONDS, SAMPLE_SECONDS)
    try:
        yield samples
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


def timed(step: str, action: Callable[[], _T]) -> _T:
    """Run `action`, check its time; a diagnostic becomes `Rejected(step)`."""
    start = time.process_time()
    with sampled() as samples:
        try:
            result = action()
        except DIAGNOSTICS as error:
            check_time(step, start, samples)
            raise Rejected(step) from error
    check_time(step, start, samples)
    return result


def check_time(step: str, start: float, samples: Counter[str]) -> None:
    seconds = time.process_time() - start
    where = "\n".join(
        f"{count:5} x {frames}" for frames, count in samples.most_common(8)
    )
    assert seconds < STEP_SECONDS, (
        f"{step} took {seconds:.1f} s of CPU; samples:\n{where}"
    )


class WrongResult(AssertionError):
    """A run after a pass (or the PyPTO round trip) fails where the run before did not, or differs."""


@dataclass(frozen=True)
class Reference:
    """The run of a mutant before any pass: its entry, inputs (by position) and outputs."""

    entry: str
    inputs: tuple[KernelArg, ...]
    run: KernelRun


def reference_run(module: ModuleOp, index_args: dict[str, int]) -> Reference | None:
    """The run of the mutant's kernel, or None if it does not run (an interpretation error)."""
    names = kernel_names(module)
    if not names:
        return None
    entry = "kernel" if "kernel" in names else names[0]
    try:
        kernel = find_kernel(module, entry)
        parameters = parameter_names(kernel)
        overrides = {
            name: value for name, value in index_args.items() if name in parameters
        }
        inputs = random_inputs(kernel, 0, overrides, max_elements=RUN_ELEMENTS)
        run = run_kernel(
            module,
            entry,
            inputs,
            max_iterations=RUN_BUDGET,
            max_elements=RUN_ELEMENTS,
        )
    except DiagnosticException:
        return None
    return Reference(entry, tuple(inputs[name] for name in parameters), run)


def check_same_results(module: ModuleOp, reference: Reference, what: str) -> None:
    """`module` gives the reference's outputs on its inputs, else `WrongResult`."""
    try:
        kernel = find_kernel(module, reference.entry)
        parameters = parameter_names(kernel)
        inputs = dict(zip(parameters, reference.inputs, strict=True))
        run = run_kernel(
            module,
            reference.entry,
            inputs,
            max_iterations=RUN_BUDGET,
            max_elements=RUN_ELEMENTS,
        )
    except DiagnosticException as error:
        message = f"{what}: the kernel runs before but fails after: {error}"
        raise WrongResult(message.partition("\n")[0]) from error
    differences = compare_runs(reference.run, run)
    if differences:
        raise WrongResult(
            f"{what}: {len(differences)} outputs differ, first {differences[0]}"
        )


def run_passes(
    module: ModuleOp, passes: tuple[ModulePass, ...], reference: Reference | None
) -> str:
    """
    Apply each pass in turn and verify its output; then run it against
    `reference`. Return the outcome. The input verified, so an output that
    does not is a bug (of the pass, or a hole in the verifier), not a
    diagnostic.
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
    if reference is None:
        return "accepted"
    what = " and ".join(pass_.name for pass_ in passes)
    timed("run", lambda: check_same_results(module, reference, what))
    return "accepted, same results"


def export_round_trip(module: ModuleOp, reference: Reference | None) -> str:
    """
    Export `module` to PyPTO and import it back; what exports must import
    (`parse_pypto` verifies) and, against `reference`, give the same outputs.
    Returns the outcome.
    """
    stream = StringIO()
    try:
        timed("export", lambda: print_pypto(module, stream))
    except Rejected:
        return "export error"
    try:
        imported = timed("import", lambda: parse_pypto(CONTEXT, stream.getvalue()))
    except Rejected as rejected:
        message = f"the exported PyPTO text does not import:\n{stream.getvalue()}"
        raise AssertionError(message) from rejected.__cause__
    if reference is None:
        return "exported"
    timed(
        "run", lambda: check_same_results(imported, reference, "the PyPTO round trip")
    )
    return "exported, same results"


def run_mutant(mutant: Mutant) -> list[str]:
    """Run every step on the mutant; return the outcomes (events)."""
    try:
        data = mutant.text.encode("utf-8", "surrogatepass")
        text = decode_source(data)
    except UnreadableInput:
        return ["unreadable"]
    try:
        module = timed("parse", lambda: parse_module(CONTEXT, text, "mutant"))
        timed("verify", lambda: verify_module(module))
    except Rejected as rejected:
        return [f"{rejected.step} error"]
    reference = timed("run", lambda: reference_run(module, mutant.index_args))
    outcomes = [
        "run: " + ("ran" if reference is not None else "run-time error"),
        f"export: {export_round_trip(module, reference)}",
    ]
    alone, with_loop, rotated = module.clone(), module.clone(), module.clone()
    surface = module.clone()
    chain_with_loop = (LOWER_WITH_LOOP, CANONICALIZE)
    chain_with_slots = (SLOTS, LOWER, CANONICALIZE)
    return [
        *outcomes,
        f"chained: {run_passes(module, (LOWER, CANONICALIZE), reference)}",
        f"remainder loop: {run_passes(with_loop, chain_with_loop, reference)}",
        f"alone: {run_passes(alone, (CANONICALIZE,), reference)}",
        f"slots: {run_passes(rotated, chain_with_slots, reference)}",
        *newer_surface(surface, text, reference),
    ]


def newer_surface(
    module: ModuleOp, text: str, reference: Reference | None
) -> list[str]:
    """
    One of `surface_mutations.SURFACES`, chosen by the mutant's text, with a
    cost table that is the bundled one or a mutated one; its outcomes.
    """
    rng = surfaces.choose(text)
    surface = rng.choice(surfaces.SURFACES)
    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        costs, usable = timed("costs", lambda: surfaces.usable_costs(rng, directory))
        table = "costs: " + ("usable" if usable else "rejected")
        if surface == "report":
            report = timed(
                "report",
                lambda: surfaces.run_report(
                    text, rng, directory, costs if rng.random() < 0.5 else None
                ),
            )
            return [table, report]
        passes = surfaces.surface_passes(rng, surface, costs)
        with redirect_stderr(StringIO()):  # auto-stages' remarks
            outcome = run_passes(module, passes, reference)
        return [table, f"{surface}: {outcome}"]


def describe(mutant: Mutant) -> str:
    form = "generic" if mutant.generic else "custom"
    arguments = f" with {mutant.index_args}" if mutant.index_args else ""
    return (
        f"mutations {', '.join(mutant.mutations)} of the {form} form"
        f"{arguments}:\n{mutant.text}"
    )


@pytest.mark.slow
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
            outcomes = run_mutant(mutant)
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
                outcomes.update(run_mutant(mutant))
        except (Exception, Hang) as error:
            outcomes["failures"] += 1
            if isinstance(error, WrongResult):
                outcomes["silent wrong results"] += 1
            found = failures.setdefault(failure_kind(error), [])
            found.append((mutant, traceback.format_exc()))
            if len(found) == 1:  # a new kind: shown at once, not only at the end
                print(
                    f"=== {failure_kind(error)}\n{error}\n{describe(mutant)}",
                    file=sys.stderr,
                )
                print(f"exactly: {mutant!r}", file=sys.stderr)
        if outcomes["mutants"] % PROGRESS == 0:
            print(
                f"{outcomes['mutants']} mutants, {outcomes['failures']} failures, "
                f"{outcomes['silent wrong results']} silent wrong results",
                file=sys.stderr,
                flush=True,
            )

    start, cpu_start = time.perf_counter(), time.process_time()
    seed(seed_value)(run)()
    cpu = time.process_time() - cpu_start
    print(f"{time.perf_counter() - start:.0f} s ({cpu:.0f} s of CPU)")
    for outcome, count in outcomes.most_common():
        print(f"{count:7} {outcome}")
    for kind, found in sorted(failures.items(), key=lambda item: -len(item[1])):
        mutant, trace = min(found, key=lambda pair: len(pair[0].text))
        print(f"\n=== {len(found)} x {kind}\n{trace}\n{describe(mutant)}")


if __name__ == "__main__":
    campaign(int(sys.argv[1]), int(sys.argv[2]))
