"""
The `modelled` order of `canonicalize-io-order`: candidate orders of a loop
body, each simulated on the schedule model (`passes.orders.body_model`); the
fastest is kept, ties going to the earlier candidate.

The candidates, in this order: the input, `category`, `engine` with each
prefetch distance D from 0 to the stages less one (at most the cost table's
`events_per_pair` less one, the event budget), and the order of a modulo
schedule of the body (`passes.schedule.modulo`) at II = max(ResMII, RecMII).
Each is a priority order on the block's dependence graph
(`passes.mechanisms.scheduling.priority_order`), so legal by construction; an order
equal to an earlier candidate's is not simulated again. As the input and
`category` are always simulated, the kept order is never slower in the
model than either. A candidate whose memory peak overflows a space the input
fits in is not kept. Once a kept candidate runs at the body's bound (the
busiest unit, or the slowest cycle of the model's constraints: no order can
be faster), the later ones are not tried.

Then a local search (`improve`) starts from the fastest candidate: it moves
one op at a time up or down by 1, 2, 4, ... 32 places, as far as no
dependence is crossed, and keeps a move that makes the order faster in the
model (first improvement), sweeping the body until a sweep keeps nothing,
the bound is reached or the budget is spent; then again from the second
and the third fastest candidates (`LOCAL_STARTS`), which may lead to a
faster order than the first's nearest one.

The search is bounded: a block of more than `SEARCH_LIMIT` ops (with the
ops nested in them: preparing its model copies them all) is not searched
(it keeps `category`), and at most `budget` body ops (the pass's
`search-budget`) are simulated per block (the ops times the candidates and the local search's
orders, the input and `category` always), the later ones skipped; a run of
the pass at most `MODULE_BLOCKS` blocks' budgets in all (`Orders.left`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from passes.analysis import DependenceGraph
from passes.mechanisms.scheduling import priority_order
from passes.orders.body_model import BodyModel, Timeline
from passes.orders.engine import copies, engine_chains, engine_keys
from passes.schedule.modulo import modulo_schedule
from passes.schedule.recurrence import max_cycle_ratio
from pypto_dialect.pipeline import PipelinePolicy

SEARCH_LIMIT = 2_000
"""The largest block (in ops, nested ones included) whose orders are simulated."""
MOVES = (1, 2, 4, 8, 16, 32)
"""How far the local search moves an op, in places, up and down."""
LOCAL_STARTS = 3
"""The fastest candidates the local search starts from, one after the other."""
MODULE_BLOCKS = 4
"""A run simulates at most this many blocks' budgets in all (`Orders.left`)."""


@dataclass(frozen=True)
class Candidate:
    """One order of the block's ops, and the keys that gave it (for `explain`)."""

    name: str
    order: tuple[int, ...]
    keys: Sequence[Any]
    chains: Mapping[str, Sequence[int]] = field(
        default_factory=dict[str, Sequence[int]]
    )
    """The ops kept in order per unit (`order=engine`)."""


@dataclass(frozen=True)
class Trial:
    """A candidate and its modelled time per loop iteration, or why it has none."""

    candidate: Candidate
    time: float | None
    note: str = ""


@dataclass(frozen=True)
class Choice:
    """The order kept for a block, and every candidate tried."""

    chosen: Candidate
    trials: tuple[Trial, ...]
    note: str = ""
    """Why the block was not searched, if it was not."""
    stop: str = ""
    """Why the later candidates were not tried, if they were not."""
    simulated: int = 0
    """The body ops simulated: the ops times the orders simulated."""

    def explain(self) -> list[str]:
        """`explain` lines: the choice, then each candidate with its time."""
        if self.note:
            return [f"  order=modelled: {self.note}"]
        best = next(t for t in self.trials if t.candidate is self.chosen)
        lines = [
            f"  order=modelled: {self.chosen.name} kept, "
            f"{_cycles(best.time)} cycles per loop iteration"
        ]
        for trial in self.trials:
            figure = [] if trial.time is None else [_cycles(trial.time)]
            note = [f"({trial.note})"] if trial.note else []
            lines.append(f"    {trial.candidate.name}: {' '.join([*figure, *note])}")
        if self.stop:
            lines.append(f"    ({self.stop})")
        return lines


def _cycles(time: float | None) -> str:
    return "-" if time is None else f"{time:.6g}"


def candidates(
    body: BodyModel,
    graph: Callable[[], DependenceGraph],
    policy: PipelinePolicy,
    category: Candidate,
) -> Iterator[Candidate]:
    """
    The candidate orders of the body, in their order of precedence (lazily:
    the dependence graph, `graph()`, is asked for only after the first two).
    """
    ops = body.ops
    yield Candidate("input", tuple(range(len(ops))), range(len(ops)))
    yield category
    chains = engine_chains(body.op_costs)
    # Beyond the event budget no load can be further ahead (`category` is).
    for distance in range(min(copies(ops), body.model.events_per_pair)):
        keys = engine_keys(ops, policy, distance)
        yield Candidate(
            f"engine D={distance}",
            tuple(priority_order(graph(), keys, list(chains.values()))),
            keys,
            chains,
        )
    modulo = modulo_candidate(body, graph())
    if modulo is not None:
        yield modulo


def modulo_candidate(body: BodyModel, graph: DependenceGraph) -> Candidate | None:
    """
    The ops by their start in a modulo schedule of the body at II =
    max(ResMII, RecMII), as a priority order (None if none is found). RecMII
    here counts every constraint of the model, buffer reuse included.
    """
    steps, edges = body.modulo_problem()
    schedule = modulo_schedule(steps, edges, max_cycle_ratio(len(steps), edges).ratio)
    if schedule is None:
        return None
    keys = body.op_keys(schedule.starts)
    name = f"modulo II={schedule.ii:.6g}"
    return Candidate(name, tuple(priority_order(graph, keys)), keys)


@dataclass
class _Search:
    """The candidates of one body tried so far, and the kept one."""

    body: BodyModel
    explain: bool
    budget: int
    """Body ops simulated at most (the pass's `search-budget`)."""
    spent_text: str
    """The budget named in the explanation of a stop."""
    trials: list[Trial] = field(default_factory=list[Trial])
    seen: dict[tuple[int, ...], str] = field(default_factory=dict[tuple[int, ...], str])
    chosen: Candidate | None = None
    best: float = float("inf")
    input: Timeline | None = None
    """The input's timeline: a candidate may overflow no memory space it fits in."""

    def try_candidate(self, candidate: Candidate, record: bool = True) -> float | None:
        """
        Simulate `candidate` (unless an earlier one has its order) and keep
        it if it is the fastest so far; its time per loop iteration, or None
        if it was not simulated or overflows a space the input fits in.
        Without `record`, it is not listed among the trials.
        """
        if candidate.order in self.seen:
            if record:
                note = f"same order as {self.seen[candidate.order]}"
                self.trials.append(Trial(candidate, None, note))
            return None
        self.seen[candidate.order] = candidate.name
        timeline = self.body.simulate(candidate.order)
        time = timeline.time_per_iteration
        if self.input is None:
            self.input = timeline
        faster = self.chosen is None or time < self.best * (1 - 1e-9)
        # The memory peaks (sorts) only where they decide or are shown: not
        # for a search that stops at the input.
        if timeline is not self.input and (faster or self.explain):
            over = frozenset(timeline.over_capacity)
            if not over <= (fits := frozenset(self.input.over_capacity)):
                if record:
                    names = ", ".join(sorted(str(s) for s in over - fits))
                    note = f"over capacity: {names}"
                    self.trials.append(Trial(candidate, time, note))
                return None
        if record:
            self.trials.append(Trial(candidate, time))
        if faster:
            self.chosen, self.best = candidate, time
        return time

    @property
    def spent(self) -> bool:
        """Whether the budget is spent: no more orders may be simulated (two at least)."""
        return len(self.seen) >= max(2, self.budget // max(1, len(self.body.ops)))

    def choice(self, chosen: Candidate, stop: str) -> Choice:
        """The choice of `chosen`, with the trials so far and the ops simulated."""
        simulated = len(self.seen) * len(self.body.ops)
        return Choice(chosen, tuple(self.trials), stop=stop, simulated=simulated)

    @property
    def at_bound(self) -> bool:
        """Whether the kept order runs at the body's bound: no order is faster."""
        return self.best <= self.body.bound * (1 + 1e-9)


@dataclass(frozen=True)
class Body:
    """A loop body to order: its model and dependence graph built when asked for."""

    size: int
    """Its ops."""
    total: int
    """Its ops and the ops nested in them."""
    policy: PipelinePolicy
    category: Candidate
    """The `category` order of its ops."""
    model: Callable[[], BodyModel]
    graph: Callable[[], DependenceGraph]


def choose_order(
    body: Body, explain: bool, budget: int, budget_name: str = ""
) -> Choice:
    """
    Simulate the candidates of `body` within `budget` simulated ops; keep
    the fastest. `budget_name` names the budget in `explain` (by default,
    the search budget of `budget` simulated ops).
    """
    size, category = body.size, body.category
    if body.total > SEARCH_LIMIT:
        nested = "" if body.total == size else " with the nested ones"
        note = (
            f"not searched: {body.total} ops{nested}, over the limit of "
            f"{SEARCH_LIMIT}; {category.name} kept"
        )
        return Choice(category, (), note)
    model = body.model()
    spent_text = budget_name or f"the search budget of {budget} simulated ops"
    search = _Search(model, explain, budget, spent_text)
    for candidate in candidates(model, body.graph, body.policy, category):
        if search.spent:
            stop = f"the later ones not tried: {spent_text} is spent"
            return search.choice(_kept(search), stop)
        search.try_candidate(candidate)
        if search.at_bound:
            stop = f"the later ones not tried: {candidate.name} runs at the bound"
            return search.choice(candidate, stop)
    return _local_search(search, body.graph())


def _local_search(search: _Search, graph: DependenceGraph) -> Choice:
    """
    `improve` from each of the `LOCAL_STARTS` fastest candidates (fastest
    first, ties to the earlier), while the budget lasts and no order is at
    the bound; an explain line per start.
    """
    timed = [
        (trial.time, trial.candidate)
        for trial in search.trials
        if trial.time is not None and not trial.note  # not over capacity
    ]
    starts = sorted(timed, key=lambda start: start[0])[:LOCAL_STARTS]
    before = [set(graph.predecessor_indices(i)) for i in range(len(graph.ops))]
    after = [set(successors) for successors in graph.all_successor_indices()]
    for time, start in starts:
        if search.at_bound or search.spent:
            break
        kept, tried = _kept(search), len(search.seen)
        improve(search, (before, after), start, time)
        tried = len(search.seen) - tried
        if _kept(search) is not kept:
            note = f"{tried} orders tried"
            search.trials.append(Trial(_kept(search), search.best, note))
        else:
            local = Candidate(f"local search from {start.name}", (), ())
            note = f"{tried} orders tried, none faster"
            search.trials.append(Trial(local, None, note))
    stop = (
        f"the local search stopped: {search.spent_text} is spent"
        if search.spent and not search.at_bound
        else ""
    )
    return search.choice(_kept(search), stop)


def improve(
    search: _Search,
    dependences: tuple[Sequence[set[int]], Sequence[set[int]]],
    start: Candidate,
    time: float,
) -> None:
    """
    Improve `start` (of `time` per loop iteration) by moving one op at a time
    (`MOVES`, never across `dependences`: each op's predecessors and
    successors) while a move makes it faster, until the budget is spent or
    `search` keeps an order at the bound.
    """
    before, after = dependences
    order, kept, swept = list(start.order), 0, -1
    while swept < kept:  # until a sweep keeps no move
        swept, position = kept, 0
        while position < len(order):
            for moved in _moves(order, position, before, after):
                if search.spent:
                    return
                name = f"{start.name} and {kept + 1} moves"
                candidate = Candidate(name, tuple(moved), _ranks(moved))
                moved_time = search.try_candidate(candidate, record=False)
                if moved_time is not None and moved_time < time * (1 - 1e-9):
                    if search.at_bound:
                        return
                    kept, time = kept + 1, moved_time
                    order = moved  # faster: try the op now at `position` too
                    break
            else:
                position += 1


def _moves(
    order: list[int],
    position: int,
    before: Sequence[set[int]],
    after: Sequence[set[int]],
) -> Iterator[list[int]]:
    """`order` with its op at `position` moved by each of `MOVES`, up then down, legally."""
    op = order[position]
    for direction, crossed in ((-1, before[op]), (1, after[op])):
        for distance in MOVES:
            target = position + direction * distance
            if not 0 <= target < len(order):
                break
            passed = (
                order[target:position]
                if direction < 0
                else order[position + 1 : target + 1]
            )
            if crossed.intersection(passed):
                break  # a dependence: no further either
            moved = order[:position] + order[position + 1 :]
            moved.insert(target, op)
            yield moved


def _ranks(order: Sequence[int]) -> list[int]:
    """Per op, its place in `order` (its key: `order` is their sorted order)."""
    ranks = [0] * len(order)
    for rank, index in enumerate(order):
        ranks[index] = rank
    return ranks


def _kept(search: _Search) -> Candidate:
    assert search.chosen is not None, "the input is always simulated"
    return search.chosen
