"""
The orders of `canonicalize-io-order` and their mechanisms: the recurrence
bound (RecMII, hand-computed), the modulo scheduler (every schedule it gives
keeps every dependence and never holds a resource twice), the prefetch
distance of `order=engine`, and the search of `order=modelled` (its budget).
"""

from __future__ import annotations

import dataclasses
from contextlib import redirect_stderr
from io import StringIO
from pathlib import Path

import pytest
from helpers import READ_HOISTED, add_one
from hypothesis import given
from hypothesis import strategies as st
from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from passes.analysis.graph import schedulable_ops
from passes.canonicalize_io_order import SEARCH_BUDGET, CanonicalizeIOOrderPass
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.orders import costed as orders
from passes.orders import modelled as order_modelled
from passes.orders.body_model import BodyModel
from passes.orders.engine import prefetch_distance
from passes.schedule.engines import CostModel, default_costs
from passes.schedule.modulo import ModuloOp, modulo_schedule, resource_bound
from passes.schedule.op_costs import op_cost
from passes.schedule.recurrence import CycleEdge, max_cycle_ratio
from passes.schedule.report import pass_pipeline, run_report
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp
from pypto_dialect.types import MemorySpace
from pypto_dialect.walks import walk_ops

CTX = pypto_context()
MODEL = default_costs()
EXAMPLES = Path(__file__).parents[2] / "examples"


def in_place(text: str) -> str:
    """`add_one` loading and storing one window of `%x`."""
    return text.replace("%x[%off]", "%x[%c0]").replace("%out[%off]", "%x[%c0]")


# --------------------------------------------------------------------------- #
# RecMII
# --------------------------------------------------------------------------- #


@pytest.mark.parametrize(
    "num_nodes, edges, ratio",
    [
        (2, [CycleEdge(0, 1, 5.0, 0)], 0.0),  # no cycle
        (1, [CycleEdge(0, 0, 5.0, 1)], 5.0),  # an accumulator
        (2, [CycleEdge(0, 1, 2.0, 0), CycleEdge(1, 0, 4.0, 1)], 6.0),
        # a swap over two iterations: (3 + 7) / 2
        (2, [CycleEdge(0, 1, 3.0, 1), CycleEdge(1, 0, 7.0, 1)], 5.0),
        # two components: the slower one
        (
            4,
            [
                CycleEdge(0, 1, 1.0, 0),
                CycleEdge(1, 0, 1.0, 1),
                CycleEdge(2, 3, 8.0, 0),
                CycleEdge(3, 2, 1.0, 1),
            ],
            9.0,
        ),
        # the long way round beats the short one: max(6 / 1, (6 + 10) / 2)
        (
            2,
            [
                CycleEdge(0, 0, 6.0, 1),
                CycleEdge(0, 1, 6.0, 1),
                CycleEdge(1, 0, 10.0, 1),
            ],
            8.0,
        ),
    ],
)
def test_max_cycle_ratio_by_hand(num_nodes: int, edges: list[CycleEdge], ratio: float):
    found = max_cycle_ratio(num_nodes, edges)
    assert found.exact and found.ratio == pytest.approx(ratio)
    if ratio:  # the cycle it names has that ratio
        cycle = found.cycle
        hops = list(zip(cycle, (*cycle[1:], cycle[0]), strict=True))
        assert all(any((e.source, e.target) == hop for e in edges) for hop in hops)


def _brute_force_ratio(num_nodes: int, edges: list[CycleEdge]) -> float:
    """The largest ratio over the simple cycles, enumerated."""
    best = 0.0
    out = [[e for e in edges if e.source == node] for node in range(num_nodes)]

    def extend(start: int, node: int, weight: float, transit: int, seen: set[int]):
        nonlocal best
        for edge in out[node]:
            if edge.target == start and transit + edge.transit:
                best = max(best, (weight + edge.weight) / (transit + edge.transit))
            elif edge.target > start and edge.target not in seen:
                extend(
                    start,
                    edge.target,
                    weight + edge.weight,
                    transit + edge.transit,
                    seen | {edge.target},
                )

    for start in range(num_nodes):
        extend(start, start, 0.0, 0, {start})
    return best


@st.composite
def loop_graphs(draw: st.DrawFn) -> tuple[int, list[CycleEdge]]:
    """A small body: same-iteration edges go forward, carried ones anywhere."""
    num_nodes = draw(st.integers(1, 7))
    edges: list[CycleEdge] = []
    for _ in range(draw(st.integers(0, 16))):
        source = draw(st.integers(0, num_nodes - 1))
        target = draw(st.integers(0, num_nodes - 1))
        transit = 0 if source < target and draw(st.booleans()) else 1
        edges.append(
            CycleEdge(source, target, float(draw(st.integers(0, 20))), transit)
        )
    return num_nodes, edges


@given(loop_graphs())
def test_max_cycle_ratio_matches_brute_force(graph: tuple[int, list[CycleEdge]]):
    found = max_cycle_ratio(*graph)
    assert found.exact
    assert found.ratio == pytest.approx(_brute_force_ratio(*graph))


def loop_figures(text: str, passes: str | None = None):
    module = parse_module(CTX, text)
    pipeline = None if passes is None else pass_pipeline(passes)
    (report,) = run_report(CTX, module, MODEL, pipeline)
    return report


def test_recurrence_bound_of_an_accumulator():
    # matmul_k_loop: each matmul_acc waits for the previous one: CUBE 16 +
    # 16 * 64 * 256 / 4096 = 80 cycles per iteration, before and after. The
    # busiest engine, MTE2 (latency 64, 64 bytes a cycle), loads a (16x64 bf16,
    # 2,048 bytes: 64 + 32 = 96) and b (64x256 bf16, 32,768 bytes: 64 + 512 =
    # 576): 672.
    text = (EXAMPLES / "matmul_k_loop.mlir").read_text()
    report = loop_figures(text, "lower-pipeline-loops,canonicalize-io-order")
    assert report.after is not None
    for figures in (report.before, report.after):
        assert figures.recurrence_bound == pytest.approx(80.0)
        assert figures.bound == figures.resource_bound == pytest.approx(672.0)


def test_recurrence_bound_of_a_window_written_then_read():
    # In place on one window: the next load reads what this store wrote:
    # load 72 + adds 10 + store 72 (512 bytes: MTE2 and MTE3 64 + 512 / 64,
    # VECTOR 8 + 512 / 256), and a flag (16) between each two engines
    # (MTE2 -> VECTOR -> MTE3 -> MTE2): 202 per iteration, above the busiest
    # engine (72), so it is the bound.
    figures = loop_figures(in_place(add_one(1))).before
    assert figures.resource_bound == pytest.approx(72.0)
    assert figures.recurrence_bound == pytest.approx(202.0)
    assert figures.bound == pytest.approx(202.0)
    assert figures.time >= figures.bound


def test_buffer_reuse_is_no_recurrence():
    # One buffer per tile makes the next load wait for this adds (load 72,
    # flag 16, adds 10, flag 16: 114 cycles a loop), but that is what stages
    # change: no dependence cycle.
    figures = loop_figures(add_one(1)).before
    assert figures.recurrence_bound == 0.0
    assert figures.time == pytest.approx(114.0)


# --------------------------------------------------------------------------- #
# The modulo scheduler
# --------------------------------------------------------------------------- #


@st.composite
def modulo_problems(draw: st.DrawFn) -> tuple[list[ModuloOp], list[CycleEdge]]:
    num_nodes, edges = draw(loop_graphs())
    ops = [
        ModuloOp(
            {draw(st.sampled_from("ABC")): duration} if duration else {},
            duration,
        )
        for duration in (float(draw(st.integers(0, 9))) for _ in range(num_nodes))
    ]
    # An edge waits at least for its source's duration, as in the model.
    edges = [e._replace(weight=ops[e.source].duration + e.weight) for e in edges]
    return ops, edges


@given(modulo_problems())
def test_modulo_schedules_keep_dependences_and_resources(
    problem: tuple[list[ModuloOp], list[CycleEdge]],
):
    ops, edges = problem
    recurrence = max_cycle_ratio(len(ops), edges).ratio
    schedule = modulo_schedule(ops, edges, recurrence)
    if schedule is None:
        return
    ii, starts = schedule.ii, schedule.starts
    assert ii >= max(recurrence, resource_bound(ops)) - 1e-9
    for edge in edges:
        assert starts[edge.target] + ii * edge.transit >= (
            starts[edge.source] + edge.weight - 1e-6
        ), edge
    held: dict[str, list[tuple[float, float]]] = {}
    for op, start in zip(ops, starts, strict=True):
        for resource, length in op.busy.items():
            held.setdefault(resource, []).append((start % ii, length))
    for intervals in held.values():
        for i, (a, a_length) in enumerate(intervals):
            for b, b_length in intervals[i + 1 :]:
                assert not (
                    (b - a) % ii < a_length - 1e-6 or (a - b) % ii < b_length - 1e-6
                )


def test_modulo_schedule_of_a_chain_is_found():
    ops = [ModuloOp({"MTE2": 72.0}, 72.0), ModuloOp({"VECTOR": 10.0}, 10.0)]
    schedule = modulo_schedule(ops, [CycleEdge(0, 1, 72.0, 0)], 0.0)
    assert schedule is not None
    assert schedule.ii == 72.0 and schedule.starts == (0.0, 72.0)


# --------------------------------------------------------------------------- #
# order=engine: the prefetch distance
# --------------------------------------------------------------------------- #


def op_costs(ops: list[Operation], model: CostModel):
    return [op_cost(op, model) for op in ops]


def lowered_body(text: str):
    module = parse_module(CTX, text)
    LowerPipelineLoopsPass().apply(CTX, module)
    (loop,) = (op for op in walk_ops(module) if isinstance(op, PipelineOp))
    return module, schedulable_ops(loop.body.block)


def test_prefetch_distance_is_one_stage_when_the_load_fills_the_interval():
    # A load (72 cycles) takes the whole interval of a stage (MTE2, 72).
    _, ops = lowered_body(add_one(4))
    assert prefetch_distance(ops, op_costs(ops, MODEL), MODEL) == 1


def test_prefetch_distance_within_the_buffer_budget():
    _, ops = lowered_body(add_one(4))
    one_tile = dataclasses.replace(
        MODEL, capacities={**MODEL.capacities, MemorySpace.VEC: 1000}
    )
    assert prefetch_distance(ops, op_costs(ops, one_tile), one_tile) == 0


def test_no_prefetch_with_one_stage():
    _, ops = lowered_body(add_one(1))
    assert prefetch_distance(ops, op_costs(ops, MODEL), MODEL) == 0


# --------------------------------------------------------------------------- #
# order=modelled: the budget
# --------------------------------------------------------------------------- #


def explained(text: str, budget: int = SEARCH_BUDGET) -> tuple[str, str]:
    """The output and the `explain` lines of both passes with `order=modelled`."""
    module = parse_module(CTX, text)
    LowerPipelineLoopsPass().apply(CTX, module)
    stderr = StringIO()
    with redirect_stderr(stderr):
        CanonicalizeIOOrderPass(
            explain=True, order="modelled", search_budget=budget
        ).apply(CTX, module)
    return str(module), stderr.getvalue()


def test_a_large_block_is_not_searched(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(order_modelled, "SEARCH_LIMIT", 10)
    output, lines = explained(add_one(4))
    assert (
        "order=modelled: not searched: 19 ops, over the limit of 10; category kept"
        in lines
    )
    category, _ = lowered_body(add_one(4))
    CanonicalizeIOOrderPass().apply(CTX, category)
    assert output == str(category)


def test_the_search_stops_at_the_bound():
    # The input runs at the busiest unit's time: no order can be faster.
    _, lines = explained(add_one(4))
    assert "order=modelled: input kept" in lines
    assert "(the later ones not tried: input runs at the bound)" in lines
    assert "category:" not in lines


@pytest.mark.parametrize(
    ("budget", "shown", "hidden"),
    [
        # 19 ops: 60 simulated ops are three candidates.
        (
            60,
            (
                "    engine D=0: ",
                "    (the later ones not tried: the search budget of 60 simulated "
                "ops is spent)",
            ),
            "engine D=1",
        ),
        # 9 orders: the 6 distinct candidates (input, category, engine D=0 to
        # D=2, modulo; D=3 repeats category), then 3 of the local search.
        (
            19 * 9,
            (
                "    local search from input: (3 orders tried, none faster)",
                "    (the local search stopped: the search budget of 171 "
                "simulated ops is spent)",
            ),
            "the later ones not tried",
        ),
    ],
)
def test_the_search_stops_at_its_budget(
    monkeypatch: pytest.MonkeyPatch, budget: int, shown: tuple[str, ...], hidden: str
):
    # A bound no order reaches, so that only the budget stops the search.
    monkeypatch.setattr(BodyModel, "bound", 0.0)
    _, lines = explained(add_one(4), budget)
    assert all(line in lines for line in shown)
    assert hidden not in lines


def test_a_run_spends_at_most_its_blocks_budgets(monkeypatch: pytest.MonkeyPatch):
    # One block's budget for the run: the first block (19 ops) spends 57 of
    # its 60 simulated ops, the second (another shape) only has the input
    # and `category`, which are always simulated. Without the run's budget,
    # a module of many blocks (copies, remainders) searches each in full.
    monkeypatch.setattr(BodyModel, "bound", 0.0)
    monkeypatch.setattr(order_modelled, "MODULE_BLOCKS", 1)
    three = add_one(3).replace("@add_one", "@add_three")
    _, lines = explained(add_one(4) + three, 60)
    first, second = lines.split("@add_three")
    assert "(the later ones not tried: the search budget of 60 simulated" in first
    assert "    engine D=0: " in first
    assert (
        "(the later ones not tried: the run's search budget of 60 simulated ops "
        "is spent)"
    ) in second
    assert "engine D=0" not in second


def test_a_loop_of_a_searched_shape_takes_its_choice(monkeypatch: pytest.MonkeyPatch):
    searched: list[int] = []

    def counted(
        body: order_modelled.Body, explain: bool, budget: int, budget_name: str
    ):
        searched.append(body.size)
        return order_modelled.choose_order(body, explain, budget, budget_name)

    monkeypatch.setattr(orders, "choose_order", counted)
    # A body whose input is not at the bound: searched, the local search's
    # order kept.
    text = READ_HOISTED.text
    twice = text + text.replace("@kernel", "@again")
    recalled, lines = explained(twice)
    assert len(searched) == 1
    kept = [line for line in lines.splitlines() if "order=modelled:" in line]
    assert len(kept) == 2 and kept[0] == kept[1]
    assert "moves kept" in kept[0]  # the local search's order, recalled

    # The same order as a search of each.
    def forgotten(*_: object) -> tuple[None, None]:
        return None, None

    monkeypatch.setattr(orders.Orders, "recall", forgotten)
    each, _ = explained(twice)
    assert len(searched) == 3
    assert recalled == each


def test_modulo_schedule_needs_the_ops_in_program_order():
    ops = [ModuloOp({}, 1.0), ModuloOp({}, 1.0)]
    with pytest.raises(ValueError, match="an edge within an iteration goes backward"):
        modulo_schedule(ops, [CycleEdge(1, 0, 1.0, 0)], 0.0)


@st.composite
def ordered_dags(draw: st.DrawFn) -> tuple[list[int], list[set[int]], list[set[int]]]:
    """A DAG on n nodes (edges from lower to higher), and a topological order of it."""
    size = draw(st.integers(1, 40))
    edges = draw(st.sets(st.tuples(st.integers(0, size - 1), st.integers(0, size - 1))))
    before: list[set[int]] = [set() for _ in range(size)]
    after: list[set[int]] = [set() for _ in range(size)]
    for source, target in edges:
        if source < target:
            before[target].add(source)
            after[source].add(target)
    return list(range(size)), before, after


@given(ordered_dags(), st.data())
def test_local_moves_keep_every_dependence(
    dag: tuple[list[int], list[set[int]], list[set[int]]], data: st.DataObject
):
    order, before, after = dag
    position = data.draw(st.integers(0, len(order) - 1))
    moves = list(order_modelled._moves(order, position, before, after))  # pyright: ignore[reportPrivateUsage]
    for moved in moves:
        assert sorted(moved) == order
        place = {node: n for n, node in enumerate(moved)}
        assert all(place[s] < place[t] for t in order for s in before[t])
    # Every move that crosses no dependence is among them (one op moved).
    assert len({tuple(m) for m in moves}) == len(moves)


def test_a_searched_order_that_breaks_a_dependence_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch,
):
    # The orders simulate their candidates unchecked; the pass checks the one
    # kept before it moves an op.
    def reversed_order(
        body: order_modelled.Body, explain: bool, budget: int, budget_name: str
    ):
        backwards = tuple(reversed(body.category.order))
        return order_modelled.Choice(
            order_modelled.Candidate("reversed", backwards, ()), ()
        )

    monkeypatch.setattr(orders, "choose_order", reversed_order)
    with pytest.raises(
        PassFailedException, match="internal error: order=modelled kept reversed"
    ):
        explained(add_one(4))


@dataclasses.dataclass(frozen=True)
class _Simulated:
    """What `_Search` reads of a timeline."""

    time_per_iteration: float
    over_capacity: frozenset[MemorySpace]


@dataclasses.dataclass(frozen=True)
class _Body:
    """A body whose orders simulate to given figures (order -> figures)."""

    figures: dict[tuple[int, ...], _Simulated]

    def simulate(self, order: tuple[int, ...]) -> _Simulated:
        return self.figures[order]


@pytest.mark.parametrize(
    ("input_over", "kept"),
    [
        # The input fits: a faster order over the UB capacity is not kept.
        (frozenset[MemorySpace](), "fits"),
        # The input itself overflows the UB: an order that does so too may be kept.
        (frozenset({MemorySpace.VEC}), "over"),
    ],
)
def test_no_order_overflows_a_space_the_input_fits_in(
    input_over: frozenset[MemorySpace], kept: str
):
    vec = frozenset({MemorySpace.VEC})
    body = _Body(
        {
            (0, 1): _Simulated(10.0, input_over),
            (1, 0): _Simulated(6.0, vec),  # the fastest
            (0, 2): _Simulated(8.0, frozenset()),
        }
    )
    search = order_modelled._Search(body, True, SEARCH_BUDGET, "the budget")  # pyright: ignore[reportPrivateUsage, reportArgumentType]
    names = {(0, 1): "input", (1, 0): "over", (0, 2): "fits"}
    times = [
        search.try_candidate(order_modelled.Candidate(name, order, ()))
        for order, name in names.items()
    ]
    assert search.chosen is not None and search.chosen.name == kept
    rejected = [t for t in search.trials if t.note.startswith("over capacity")]
    if kept == "fits":
        assert times == [10.0, None, 8.0]
        assert [t.note for t in rejected] == ["over capacity: vec"]
    else:
        assert times == [10.0, 6.0, 8.0] and not rejected
