"""
The timeline simulation proper: a body's steps issued in an order, iteration
after iteration, on the cores' queues and units, until the schedule repeats.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import sub

from passes.analysis.slots import declared_bytes
from passes.schedule.engines import (
    Core,
    CostModel,
    Engine,
    Unit,
)
from passes.schedule.steps import Reason, Step, Wait
from pypto_dialect.allocation import BindOp
from pypto_dialect.attributes import StagePair
from pypto_dialect.types import MemorySpace

Schedule = tuple[tuple[float, ...], ...]
"""Per simulated iteration, a time per step of the body."""


MAX_PERIOD = 8
"""The longest period (in iterations) the steady state is looked for with."""


Signals = dict[int, tuple[float, int]]
"""(flag time, number) of the flags set, by `source * steps + target`."""
NO_PAIR = -1
"""The pair of a wait no flag carries."""


@dataclass(frozen=True, slots=True)
class _StepInfo:
    """
    A step's figures, as the simulation reads them for each iteration; units
    and pairs of units by their numbers in the plan (`Plan.units`).
    """

    units: tuple[int, ...]
    queue: int | None
    """The unit whose queue it waits in; None if it blocks the issue (`Step.blocking`)."""
    duration: float
    cores: tuple[Core | None, ...]
    same: tuple[tuple[int, int, str], ...]
    """(step, pair or `NO_PAIR`, reason): the steps of this iteration it waits for."""
    carried: tuple[tuple[int, int, str], ...]
    """The same for the steps of the previous iteration."""
    earlier: tuple[tuple[int, bool, int, str], ...]
    """(step, flag, iterations back, reason): the readers of its slot (`Step.earlier`)."""

    @staticmethod
    def of(
        index: int,
        steps: Sequence[Step],
        same: Sequence[Wait],
        previous: Sequence[Wait],
        number: Mapping[Unit, int],
    ) -> _StepInfo:
        step = steps[index]
        units = tuple(number[unit] for unit in step.units)

        def waits(sources: Sequence[Wait]) -> tuple[tuple[int, int, str], ...]:
            return tuple(
                (
                    source,
                    _pair(number, steps[source], step) if flagged else NO_PAIR,
                    f"{Reason.DEPENDENCE} {steps[source].op.name}"
                    + (" (flag)" if flagged else ""),
                )
                for source, flagged in sources
            )

        earlier = tuple(
            (
                source,
                flagged,
                back,
                f"{Reason.DEPENDENCE} {steps[source].op.name} (slot)",
            )
            for source, flagged, back in step.earlier
        )
        return _StepInfo(
            units,
            None if step.blocking else units[0],
            step.cost.duration,
            step.cores,
            waits(same),
            waits(previous),
            earlier,
        )


def _pair(number: Mapping[Unit, int], source: Step, target: Step) -> int:
    """
    The number of the pair a flag from `source` to `target` goes between;
    `NO_PAIR` if either holds no unit (an `scf.if` that only yields).
    """
    if not source.units or not target.units:
        return NO_PAIR
    return number[source.units[0]] * len(number) + number[target.units[0]]


Flag = tuple[int, int, int]
"""A flag a step sets: its key in `Signals`, 1 if of the next iteration (else 0), its pair."""


def _flags(
    steps: Sequence[Step],
    waits: Sequence[tuple[Sequence[Wait], Sequence[Wait]]],
    number: Mapping[Unit, int],
) -> list[list[Flag]]:
    """Per step, the flags it sets, from the waits (same, previous) of each."""
    flags: list[list[Flag]] = [[] for _ in steps]
    count = len(steps)
    for target, (same, previous) in enumerate(waits):
        for step_waits, carried in ((same, 0), (previous, 1)):
            for source, flagged in step_waits:
                if flagged:
                    pair = _pair(number, steps[source], steps[target])
                    flags[source].append((source * count + target, carried, pair))
    return flags


@dataclass(frozen=True)
class Plan:
    """What every simulation of a body reads, whatever the order of its steps."""

    waits: list[tuple[Sequence[Wait], Sequence[Wait]]]
    """Per step, the steps it waits for: of this iteration, of the previous one."""
    carried_readers: Mapping[int, tuple[Wait, ...]]
    """The steps with loop-carried readers (waited for when they come first)."""
    units: Mapping[Unit, int]
    """The units the steps use, numbered."""
    info: list[_StepInfo]
    flags: list[list[Flag]]
    groups: list[list[int]]
    """Steps by the cores that issue them: cores that do not wait for each other run at their own rate."""
    busy: Mapping[Unit, float]
    """Busy time per iteration of each unit."""

    @staticmethod
    def of(steps: Sequence[Step]) -> Plan:
        waits: list[tuple[Sequence[Wait], Sequence[Wait]]] = [
            (step.same, step.previous) for step in steps
        ]
        groups: dict[tuple[Core | None, ...], list[int]] = {}
        busy: dict[Unit, float] = {}
        issue: dict[Unit, float] = {}
        for index, step in enumerate(steps):
            groups.setdefault(step.cores, []).append(index)
            for unit, time in step.cost.busy.items():
                busy[unit] = busy.get(unit, 0.0) + time
            if step.blocking:
                for core in step.cores:
                    unit = Unit(core, Engine.SCALAR)
                    issue[unit] = issue.get(unit, 0.0) + step.cost.duration
        # A blocking step (a scalar op, an op with regions) holds its core's
        # issue, on the scalar unit, until it ends.
        for unit, time in issue.items():
            busy[unit] = max(busy.get(unit, 0.0), time)
        number: dict[Unit, int] = {}
        for step in steps:
            for unit in step.units:
                number.setdefault(unit, len(number))
        return Plan(
            waits,
            {
                i: step.carried_readers
                for i, step in enumerate(steps)
                if step.carried_readers
            },
            number,
            [_StepInfo.of(i, steps, *pair, number) for i, pair in enumerate(waits)],
            _flags(steps, waits, number),
            list(groups.values()),
            busy,
        )


class Run:
    """
    The state of a simulation: issue per core, units, queues, flags.

    A flag takes an event id of its pair when its source ends: the
    `events_per_pair`-th flag before it on that pair must have been waited
    for (its target started), else the source's unit stalls until it is.
    Only waits already simulated (earlier in issue order) are known: a
    flag whose earlier one waits later in the same iteration does not stall.
    """

    def __init__(
        self,
        steps: Sequence[Step],
        plan: Plan,
        model: CostModel,
        order: tuple[int, ...],
    ):
        self.steps = steps
        self.order = order
        self.depth = model.queue_depth
        self.sync = model.sync_latency
        self.budget = model.events_per_pair
        self.info, self.flags = plan.info, plan.flags
        if plan.carried_readers:
            # The loop-carried readers that come first in this order wait
            # for them too: the waits of their producers, and so the flags.
            self._wait_for_carried_readers(plan, order)
        units = len(plan.units)
        self.free = [0.0] * units
        self.waiting = [deque[float](maxlen=self.depth) for _ in range(units)]
        self.issue: dict[Core | None, float] = {
            core: 0.0 for step in self.steps for core in step.cores
        }
        self.created = [0] * units * units
        """Flags set so far per pair."""
        self.released: list[dict[int, float]] = [{} for _ in range(units * units)]
        """When each recent flag of a pair was waited for, by its number."""
        self.signals_before: Signals = {}
        """The flags the previous iteration set for this one."""
        self.starts: list[tuple[float, ...]] = []
        self.ends: list[tuple[float, ...]] = []
        self.reached: list[tuple[float, ...]] = []
        self.issued: list[tuple[float, ...]] = []
        self.reasons: list[tuple[str, ...]] = []
        self.history = self._history()
        """Iterations the next one depends on (queues, event ids, slots)."""
        self.groups = plan.groups
        """Steps by the cores that issue them: cores that do not wait for each other run at their own rate."""

    def _wait_for_carried_readers(self, plan: Plan, order: tuple[int, ...]) -> None:
        """The waits and flags of `plan` with the carried readers that come first."""
        position = {step: n for n, step in enumerate(order)}
        waits = list(plan.waits)
        changed: list[int] = []
        for producer, readers in plan.carried_readers.items():
            first = tuple(w for w in readers if position[w[0]] < position[producer])
            if first:
                same, previous = waits[producer]
                waits[producer] = ((*same, *first), previous)
                changed.append(producer)
        if not changed:
            return
        self.info = list(plan.info)
        for producer in changed:
            self.info[producer] = _StepInfo.of(
                producer, self.steps, *waits[producer], plan.units
            )
        self.flags = _flags(self.steps, waits, plan.units)

    def _history(self) -> int:
        """
        The iterations whose times determine the next one: the previous one
        (its ends, its flags), those that queued the last `queue_depth` ops
        of each unit (`ceil(depth / ops queued per iteration)`), and those
        whose flags the last `events_per_pair` of each pair are, with the
        iteration before them, where the waits that released those event
        ids may be (`ceil(budget / flags per iteration) + 1`), and the
        readers of the slots the body rotates through (F iterations back).
        """
        queued: dict[int, int] = {}
        for info in self.info:
            if info.queue is not None:
                queued[info.queue] = queued.get(info.queue, 0) + 1
        flags: dict[int, int] = {}
        for step_flags in self.flags:
            for _, _, pair in step_flags:
                flags[pair] = flags.get(pair, 0) + 1
        return max(
            [
                1,
                *(-(-self.depth // count) for count in queued.values()),
                *(-(-self.budget // count) + 1 for count in flags.values()),
                *(back for step in self.steps for _, _, back in step.earlier),
            ]
        )

    def iteration(self) -> None:  # noqa: PLR0915 (one frame: a call per step costs a tenth)
        """
        Simulate one more iteration: for each step in issue order, when the
        issue reaches it, when it is issued (later if its queue is full),
        when its unit lets it start, and when what it depends on has ended
        (behind its flags, whose event ids it then releases).
        """
        count = len(self.steps)
        starts, ends = [0.0] * count, [0.0] * count
        reached, issued = [0.0] * count, [0.0] * count
        reasons = [""] * count
        previous = self.ends[-1] if self.ends else None
        signals: tuple[Signals, Signals] = ({}, {})  # this iteration's, the next's
        now_signals, signals_before = signals[0], self.signals_before
        depth, sync, budget = self.depth, self.sync, self.budget
        free, waiting, issue_of = self.free, self.waiting, self.issue
        released = self.released
        infos, flags_of = self.info, self.flags
        for i in self.order:
            info = infos[i]
            cores = info.cores
            if len(cores) == 1:
                reach = issue_of[cores[0]]
            else:
                reach = max([issue_of[core] for core in cores])
            issue = reach
            queue = info.queue
            if queue is None:
                units = info.units
                start = (
                    max(issue, free[units[0]])
                    if len(units) == 1
                    else max([issue, *(free[u] for u in units)])
                )
            else:
                queued = waiting[queue]
                if depth and len(queued) == depth and queued[0] > issue:
                    issue = queued[0]
                start = max(issue, free[queue])
            reason = Reason.ENGINE if start > issue else ""
            consumed: list[tuple[int, int]] = []
            for source, pair, why in info.same:
                ready = ends[source]
                if (
                    pair != NO_PAIR
                    and (signal := now_signals.get(source * count + i)) is not None
                ):
                    ready = signal[0] + sync
                    consumed.append((pair, signal[1]))
                if ready > start:
                    start, reason = ready, why
            if previous is not None:
                for source, pair, why in info.carried:
                    ready = previous[source]
                    if (
                        pair != NO_PAIR
                        and (signal := signals_before.get(source * count + i))
                        is not None
                    ):
                        ready = signal[0] + sync
                        consumed.append((pair, signal[1]))
                    if ready > start:
                        start, reason = ready, why
            if info.earlier:
                start, reason = self._wait_for_slot(info, start, reason)
            # The event ids of the flags it waited for, released at its start.
            for pair, number in consumed:
                recent = released[pair]
                recent[number] = start
                recent.pop(number - 2 * budget, None)
            end = start + info.duration
            flag_time = self._set_flags(i, end, signals) if flags_of[i] else end
            next_issue = flag_time if queue is None else (issue if depth else start)
            for core in cores:
                issue_of[core] = next_issue
            for unit in info.units:
                free[unit] = flag_time
            if queue is not None:
                waiting[queue].append(start)
            starts[i], ends[i], reasons[i] = start, end, reason
            reached[i], issued[i] = reach, issue
        self.signals_before = signals[1]
        self.starts.append(tuple(starts))
        self.ends.append(tuple(ends))
        self.reached.append(tuple(reached))
        self.issued.append(tuple(issued))
        self.reasons.append(tuple(reasons))

    def _set_flags(
        self, index: int, end: float, signals: tuple[Signals, Signals]
    ) -> float:
        """
        Set the flags of step `index` (ended at `end`), each with an event id
        of its pair; returns when the last is set (its units wait till then).
        """
        created, released, budget = self.created, self.released, self.budget
        flag_time = end
        for key, carried, pair in self.flags[index]:
            number = created[pair]
            created[pair] = number + 1
            earlier = released[pair].get(number - budget)
            if earlier is not None and earlier > flag_time:
                flag_time = earlier  # waits for a free event id
            signals[carried][key] = (flag_time, number)
        return flag_time

    def _wait_for_slot(
        self, info: _StepInfo, start: float, reason: str
    ) -> tuple[float, str]:
        """The start once the readers of its slot, F iterations back, have ended."""
        for source, flagged, back, why in info.earlier:
            # A flag per slot, not counted against the event budget.
            if len(self.ends) >= back:
                ready = self.ends[-back][source] + (self.sync if flagged else 0.0)
                if ready > start:
                    start, reason = ready, why
        return start, reason

    def until_periodic(self, min_iterations: int, max_iterations: int) -> Period | None:
        """
        Iterations until the schedule is periodic, then its period, or None
        after `max_iterations`.
        """
        for iteration in range(max_iterations):
            self.iteration()
            if iteration + 1 >= min_iterations and (period := self._period()):
                return period
        return None

    def last_end(self, iterations: int, period: Period | None) -> float:
        """
        The end of the last op of the first `iterations` iterations, all
        simulated or, with the `period` the simulated ones end with, the
        rest extrapolated: iteration m + k c is iteration m of the last
        period with each group shifted k times by its shift over c
        iterations, so the latest end is a simulated one or one of the last
        period's shifted as often as fits below `iterations` (a + k s is
        largest at an end of the range of k). Exact: the shifts and sums are
        of `Fraction`s (the simulated floats exactly), rounded to a float
        once, so a count of 2^62 gives the nearest float to the periodic
        extrapolation (adding a cycle to 2^62 in floats would be lost).
        """
        ends = self.ends
        latest = max((max(times, default=0.0) for times in ends), default=0.0)
        if period is None or len(ends) == iterations:
            return latest
        exact = Fraction(latest)
        last, c = len(ends) - 1, period.iterations
        for group in self.groups:
            shift = Fraction(self.starts[last][group[0]]) - Fraction(
                self.starts[last - c][group[0]]
            )
            for m in range(last - c + 1, last + 1):
                end = Fraction(max(ends[m][i] for i in group))
                exact = max(exact, end + (iterations - 1 - m) // c * shift)
        return float(exact)

    def _period(self) -> Period | None:
        """
        The period once the last `history` iterations (all the next one
        depends on) repeat those `c` iterations earlier, each group of steps
        of the same cores shifted by a constant: then every later one does
        too (max-plus maps commute with shifts). Groups that do not wait for
        each other may run at different rates: the slowest sets the time.
        """
        starts, issued = self.starts, self.issued
        last = len(starts) - 1
        if not starts[last]:
            return Period(1, 0.0)
        for c in range(1, MAX_PERIOD + 1):
            if last - c - self.history + 1 < 0:
                return None
            shifts = [starts[last][g[0]] - starts[last - c][g[0]] for g in self.groups]
            if all(
                _shifted(times[last - k], times[last - k - c], group, shift)
                for k in range(self.history)
                for times in (starts, issued)
                for group, shift in zip(self.groups, shifts, strict=True)
            ):
                return Period(c, max(shifts) / c)
        return None


def _shifted(
    now: Sequence[float], then: Sequence[float], group: Sequence[int], shift: float
) -> bool:
    """Whether the times of `group` in `now` are those of `then` plus `shift` (up to rounding)."""
    if len(group) != len(now):
        now, then = [now[i] for i in group], [then[i] for i in group]
    differences = set(map(sub, now, then))
    return differences == {shift} or all(_close(d, shift) for d in differences)


@dataclass(frozen=True)
class Period:
    """A periodic schedule: every `iterations` iterations, each group of steps shifts by a constant."""

    iterations: int
    time_per_iteration: float
    """The slowest group's shift over `iterations`, per iteration."""


def _close(x: float, y: float) -> bool:
    return abs(x - y) <= 1e-9 * max(1.0, abs(x), abs(y))


def average_period(starts: Schedule, ends: Schedule) -> float:
    """
    The time per iteration over the second half of the simulation: from the
    first start of those iterations to the last end, so never less than any
    engine's busy time.
    """
    half = len(starts) // 2
    first = min((min(s) for s in starts[half:] if s), default=0.0)
    last = max((max(e) for e in ends if e), default=0.0)
    return (last - first) / (len(starts) - half)


def peak_bytes(
    steps: Sequence[Step], starts: Schedule, ends: Schedule
) -> dict[MemorySpace, int]:
    """
    Bytes needed per memory space. A tile lives from its producer's start to
    its last consumer's end (to the start of a consumer that updates it in
    place, whose result takes its buffer over), a scratch buffer while its op
    runs; each pool (membership) has its own buffers, so the pools' peaks add
    up; a declared allocation the body binds to counts all its slots.
    """
    events: dict[tuple[tuple[StagePair, ...], MemorySpace], list[tuple[float, int]]]
    events = {}
    for iteration, (now_starts, now_ends) in enumerate(zip(starts, ends, strict=True)):
        times = [(now_starts, now_ends)]
        if iteration + 1 < len(starts):
            times.append((starts[iteration + 1], ends[iteration + 1]))
        for index, step in enumerate(steps):
            end = now_ends[index]
            for uses, (use_starts, use_ends) in zip(
                (step.consumers, step.next_consumers), times, strict=False
            ):
                for consumer, in_place in uses:
                    end = max(end, (use_starts if in_place else use_ends)[consumer])
            for space, size in step.tiles.items():
                events.setdefault((step.pool, space), []).extend(
                    ((now_starts[index], size), (end, -size))
                )
            for space, size in step.scratch.items():
                events.setdefault((step.pool, space), []).extend(
                    ((now_starts[index], size), (now_ends[index], -size))
                )
    peaks: dict[MemorySpace, int] = {}
    for (_, space), changes in events.items():
        changes.sort()  # a buffer freed at t can be reused at t
        live = peak = 0
        for _, change in changes:
            live += change
            peak = max(peak, live)
        peaks[space] = peaks.get(space, 0) + peak
    # The allocations the body binds to are pinned: every slot, all the time.
    declarations = {
        step.op.declaration for step in steps if isinstance(step.op, BindOp)
    }
    for declaration in declarations:
        space = declaration.memory_space
        peaks[space] = peaks.get(space, 0) + declared_bytes(declaration)
    return peaks
