"""
The `modelled` order of `canonicalize-io-order`: candidate orders of a loop
body, each simulated on the schedule model (`passes.order_model`); the
fastest is kept, ties going to the earlier candidate.

The candidates, in this order: the input, `category`, `engine` with each
prefetch distance D from 0 to the stages less one (at most the
cost table's `events_per_pair` less one, the event budget), and the order of a modulo
schedule of the body (`passes.analysis.modulo`) at II = max(ResMII, RecMII).
Each is a priority order on the block's dependence graph
(`passes.scheduling.priority_order`), so legal by construction; an order
equal to an earlier candidate's is not simulated again. As the input and
`category` are candidates, the kept order is never slower in the model than
either. A candidate whose memory peak overflows a space the input fits in
is not kept.

The search is bounded: a block of more than `SEARCH_LIMIT` ops is not
searched (it keeps `category`), and at most `SEARCH_BUDGET` body ops are
simulated per block (the ops times the candidates, the input and `category`
always), the later candidates skipped.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from passes.analysis import DependenceGraph
from passes.analysis.modulo import modulo_schedule
from passes.analysis.recurrence import max_cycle_ratio
from passes.order_engine import copies, engine_chains, engine_keys, op_costs
from passes.order_model import BodyModel
from passes.scheduling import priority_order
from pypto_dialect.pipeline import PipelinePolicy

SEARCH_LIMIT = 2_000
"""The largest block (in ops) whose orders are simulated."""
SEARCH_BUDGET = 60_000
"""Body ops simulated at most per block, over all candidates."""


@dataclass(frozen=True)
class Candidate:
    """One order of the block's ops, and the keys that gave it (for `explain`)."""

    name: str
    order: tuple[int, ...]
    keys: Sequence[Any]
    chains: Mapping[str, Sequence[int]] = field(
        default_factory=dict[str, Sequence[int]]
    )
    """The ops kept in order per engine (`order=engine`)."""


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
        return lines


def _cycles(time: float | None) -> str:
    return "-" if time is None else f"{time:.6g}"


def candidates(
    body: BodyModel,
    graph: DependenceGraph,
    policy: PipelinePolicy,
    category: Candidate,
) -> Iterator[Candidate]:
    """The candidate orders of the body, in their order of precedence (lazily)."""
    ops = body.ops
    yield Candidate("input", tuple(range(len(ops))), range(len(ops)))
    yield category
    chains = engine_chains(op_costs(ops, body.model))
    # Beyond the event budget no load can be further ahead (`category` is).
    for distance in range(min(copies(ops), body.model.events_per_pair)):
        keys = engine_keys(ops, policy, distance)
        yield Candidate(
            f"engine D={distance}",
            tuple(priority_order(graph, keys, list(chains.values()))),
            keys,
            chains,
        )
    modulo = modulo_candidate(body, graph)
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


def choose_order(
    body: BodyModel,
    graph: DependenceGraph,
    policy: PipelinePolicy,
    category: Candidate,
) -> Choice:
    """Simulate the candidates of `body` within the budget; keep the fastest."""
    size = len(body.ops)
    if size > SEARCH_LIMIT:
        note = (
            f"not searched: {size} ops, over the limit of {SEARCH_LIMIT}; "
            f"{category.name} kept"
        )
        return Choice(category, (), note)
    trials: list[Trial] = []
    seen: dict[tuple[int, ...], str] = {}
    allowed = max(2, SEARCH_BUDGET // max(1, size))
    chosen: Candidate | None = None
    best = float("inf")
    fits: frozenset[object] = frozenset()
    for candidate in candidates(body, graph, policy, category):
        if candidate.order in seen:
            trials.append(
                Trial(candidate, None, f"same order as {seen[candidate.order]}")
            )
            continue
        if len(seen) == allowed:
            note = (
                f"not tried: the search budget of {SEARCH_BUDGET} simulated ops "
                "is spent, nor the later candidates"
            )
            trials.append(Trial(candidate, None, note))
            break
        seen[candidate.order] = candidate.name
        timeline = body.simulate(candidate.order)
        over = frozenset(timeline.over_capacity)
        if chosen is None:
            fits = over  # the input's overflows: no candidate may add one
        elif not over <= fits:
            names = ", ".join(sorted(str(space) for space in over - fits))
            trials.append(
                Trial(candidate, timeline.time_per_iteration, f"over capacity: {names}")
            )
            continue
        time = timeline.time_per_iteration
        trials.append(Trial(candidate, time))
        if chosen is None or time < best * (1 - 1e-9):
            chosen, best = candidate, time
    assert chosen is not None, "the input is always simulated"
    return Choice(chosen, tuple(trials))
