"""
The slots of declared allocations in the dependence analysis
(`passes/analysis/slots.py`): the edges they add on small blocks, and, on
random blocks of bindings and reads, the graph against a brute-force test
that evaluates the slot indices, and the order check against the graph.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import pytest
from dependence_helpers import reachable
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.ir import Operation
from xdsl.parser import Parser

from passes.analysis import DependenceGraph, DependenceKind, OpSummaries
from passes.analysis.order_check import keeps_dependences
from passes.analysis.slots import filled_binding, slot_window
from passes.analysis.windows import LinearForms
from pypto_dialect.allocation import BindOp
from pypto_dialect.context import pypto_context
from pypto_dialect.pipeline import PipelineOp

TILE = "!pypto.tile<64xf32, vec>"

_HEADER = f"""
func.func @k(%x: !pypto.tensor<256xf32>, %out: !pypto.tensor<256xf32>, %t: {TILE}, %j: index, %cond: i1) {{
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<vec>
  %b = pypto.alloc "b" slots 2 : !pypto.alloc<vec>
  %one = pypto.alloc "one" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {{
    %i1 = arith.addi %i, %c1 : index
    %i2 = arith.addi %i, %c2 : index
    %rot0 = arith.remsi %i, %c2 : index
    %rot1 = arith.remsi %i1, %c2 : index
    %rot2 = arith.remsi %i2, %c2 : index
"""


def _kernel(body: str) -> str:
    return _HEADER + body + "\n  }\n  func.return\n}\n"


def _graph(text: str) -> tuple[DependenceGraph, dict[str, Operation]]:
    """The graph of the pipeline body, and its ops by result name."""
    module = Parser(pypto_context(), text).parse_module()
    module.verify()
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    graph = DependenceGraph.build(pipeline.body.block)
    named = {
        result.name_hint: op
        for op in graph.ops
        for result in op.results
        if result.name_hint is not None
    }
    for op in graph.ops:
        if (label := op.attributes.get("label")) is not None:
            named[str(label).strip('"')] = op
    return graph, named


def _memory_edges(
    graph: DependenceGraph, ops: dict[str, Operation]
) -> set[tuple[str, str, str]]:
    names = {op: name for name, op in ops.items()}
    return {
        (names[source], names[target], reason.kind.value)
        for target in graph.ops
        if target in names
        for source, reasons in graph.predecessors(target).items()
        if source in names
        for reason in reasons
        if reason.kind is not DependenceKind.SSA
    }


def _load(name: str) -> str:
    return f"    %{name} = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> {TILE}\n"


def _bind(name: str, tile: str, allocation: str, slot: str | None) -> str:
    index = "" if slot is None else f"[%{slot}]"
    return f"    %{name} = pypto.bind %{tile} to %{allocation}{index} : {TILE}\n"


def _bound_load(n: int, allocation: str, slot: str | None) -> str:
    """`%l<n>`, a load, bound as `%t<n>` to a slot of `allocation`."""
    return _load(f"l{n}") + _bind(f"t{n}", f"l{n}", allocation, slot)


def _use(name: str, tile: str) -> str:
    return f"    %{name} = pypto.tile.neg %{tile} : {TILE}\n"


def test_a_tile_computed_into_a_slot_waits_for_the_reads_of_the_slot():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + _use("u0", "t0")
            + _bound_load(1, "a", "c0")
            + _use("u1", "t1")
        )
    )
    assert _memory_edges(graph, ops) == {
        ("l0", "t0", "write after write"),
        ("t0", "u0", "read after write"),
        ("u0", "l1", "write after read"),
        ("t0", "l1", "write after write"),
        ("l1", "t1", "write after write"),
        ("t1", "u1", "read after write"),
    }
    (reason,) = graph.predecessors(ops["l1"])[ops["u0"]]
    assert str(reason) == "write after read of %a on pypto.allocation"


def test_other_slots_and_allocations_are_independent():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + _use("u0", "t0")
            + _bound_load(1, "a", "c1")
            + _bound_load(2, "b", "c0")
            + _bound_load(3, "a", "rot1")
            + _bound_load(4, "one", None)
        )
    )
    later = {"l1", "t1", "l2", "t2", "l4", "t4"}
    assert not any(
        source in {"l0", "t0", "u0"} and target in later
        for source, target, _ in _memory_edges(graph, ops)
    )
    # slot 0 and slot (i + 1) % 2 may meet (i odd)
    assert ("u0", "l3", "write after read") in _memory_edges(graph, ops)


def test_rotations_of_consecutive_iterations_never_meet():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "rot0")
            + _use("u0", "t0")
            + _bound_load(1, "a", "rot1")
            + _bound_load(2, "a", "rot2")
        )
    )
    edges = _memory_edges(graph, ops)
    into_slot_one = {(s, t) for s, t, _ in edges if t in {"l1", "t1"}}
    assert into_slot_one == {("l1", "t1")}
    # (i + 2) % 2 is i % 2: the same slot
    assert ("u0", "l2", "write after read") in edges


def test_a_runtime_slot_may_be_any_slot():
    graph, ops = _graph(
        _kernel(_bound_load(0, "a", "j") + _use("u0", "t0") + _bound_load(1, "a", "c1"))
    )
    assert ("u0", "l1", "write after read") in _memory_edges(graph, ops)


def test_a_tile_with_other_uses_is_not_computed_into_the_slot():
    """The binding copies it: only the binding waits for the slot's reads."""
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + _use("u0", "t0")
            + _load("l1")
            + _use("other", "l1")
            + _bind("t1", "l1", "a", "c0")
        )
    )
    edges = _memory_edges(graph, ops)
    assert ("u0", "t1", "write after read") in edges
    assert not any(target == "l1" for _, target, _ in edges)
    assert filled_binding(ops["l1"]) is None
    assert filled_binding(ops["l0"]) is ops["t0"]
    assert filled_binding(ops["t0"]) is None, "a binding fills no other binding"


def test_a_nested_read_is_a_read_of_the_op_around_it():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + f"""    scf.if %cond {{
      %n = pypto.tile.neg %t0 : {TILE}
      pypto.tile.store %n, %out[%c0] : {TILE}, !pypto.tensor<256xf32>
    }} {{label = "if"}}
"""
            + _bound_load(1, "a", "c0")
        )
    )
    assert ("if", "l1", "write after read") in _memory_edges(graph, ops)


def test_a_binding_nested_in_a_loop_writes_for_the_loop():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + _use("u0", "t0")
            + f"""    scf.for %k = %c0 to %c8 step %c1 {{
      %m = pypto.tile.load %x[%k] : !pypto.tensor<256xf32> -> {TILE}
      %mb = pypto.bind %m to %a[%c0] : {TILE}
      pypto.tile.store %mb, %out[%k] : {TILE}, !pypto.tensor<256xf32>
    }} {{label = "loop"}}
"""
        )
    )
    assert ("u0", "loop", "write after read") in _memory_edges(graph, ops)


def test_functions_without_allocations_are_not_looked_at():
    text = f"""
func.func @k(%t: {TILE}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {{
    %n = pypto.tile.neg %t : {TILE}
  }}
  func.return
}}
"""
    module = Parser(pypto_context(), text).parse_module()
    pipeline = next(op for op in module.walk() if isinstance(op, PipelineOp))
    summaries = OpSummaries()
    assert not summaries.slots_in(pipeline.body.block)
    _, ops = _graph(_kernel(_use("u", "t")))
    assert summaries.slots_in(ops["u"].parent)


def test_slot_windows():
    forms = LinearForms()
    _, ops = _graph(
        _kernel(
            "    %cm3 = arith.constant -3 : index\n"
            + "    %r = arith.remsi %cm3, %c2 : index\n"
            + _bind("q", "t", "a", "r")
            + _bind("q1", "t", "a", "rot1")
            + _bind("q2", "t", "one", None)
        )
    )

    def offset(name: str) -> tuple[int, bool]:
        binding = ops[name]
        assert isinstance(binding, BindOp)
        (dim,) = slot_window(binding, forms).dims
        assert dim.offset is not None and dim.extent == 1
        return dim.offset.constant, bool(dim.offset.symbolic)

    assert offset("q") == (-1, False), "remsi rounds toward zero"
    assert offset("q1") == (1, True)
    assert offset("q2") == (0, False)


# --------------------------------------------------------------------------- #
# Random blocks against brute force
# --------------------------------------------------------------------------- #

_SLOTS = ("c0", "c1", "rot0", "rot1", "rot2", "j", None)
"""Slot indices: constants, `i % 2` rotations, a runtime `%j`, one slot."""
_VALUES: dict[str | None, Callable[[int, int], int]] = {
    "c0": lambda i, j: 0,
    "c1": lambda i, j: 1,
    "rot0": lambda i, j: i % 2,
    "rot1": lambda i, j: (i + 1) % 2,
    "rot2": lambda i, j: (i + 2) % 2,
    "j": lambda i, j: j,
    None: lambda i, j: 0,
}


@dataclass(frozen=True)
class _Spec:
    """A binding (`bind`), or a read of the `of`-th binding before it."""

    bind: bool
    allocation: int
    slot: str | None
    shared: bool
    """The bound tile has another use: the binding copies it."""
    of: int


_specs = st.lists(
    st.builds(
        _Spec,
        st.booleans(),
        st.integers(0, 1),
        st.sampled_from(_SLOTS),
        st.booleans(),
        st.integers(0, 20),
    ),
    max_size=20,
)


@dataclass(frozen=True)
class _Access:
    op: str
    write: bool
    allocation: str
    slot: str | None


def _build(specs: Sequence[_Spec]) -> tuple[str, list[_Access]]:
    """The kernel text and, in program order, the slot accesses it makes."""
    body = ""
    accesses: list[_Access] = []
    bindings: list[_Access] = []
    for n, spec in enumerate(specs):
        if spec.bind:
            allocation = "one" if spec.slot is None else "ab"[spec.allocation]
            body += _load(f"l{n}")
            if spec.shared:
                body += _use(f"s{n}", f"l{n}")
            else:
                accesses.append(_Access(f"l{n}", True, allocation, spec.slot))
            body += _bind(f"t{n}", f"l{n}", allocation, spec.slot)
            bound = _Access(f"t{n}", True, allocation, spec.slot)
            accesses.append(bound)
            bindings.append(bound)
        elif bindings:
            read = bindings[spec.of % len(bindings)]
            body += _use(f"u{n}", read.op)
            accesses.append(_Access(f"u{n}", False, read.allocation, read.slot))
    return _kernel(body), accesses


def _may_meet(a: _Access, b: _Access) -> bool:
    """Whether the slots of `a` and `b` are equal for some `i`, `j`."""
    if a.allocation != b.allocation or not (a.write or b.write):
        return False
    return any(
        _VALUES[a.slot](i, j) == _VALUES[b.slot](i, j)
        for i in range(8)
        for j in range(2)
    )


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(_specs, st.randoms(use_true_random=False))
def test_slot_edges_match_brute_force(specs: list[_Spec], rng: random.Random):
    """
    The graph orders every pair of slot accesses that may meet, and its
    memory edges are all such pairs; the order check accepts only orders
    that keep every edge of the graph.
    """
    text, accesses = _build(specs)
    graph, ops = _graph(text)
    index = {name: graph.index(op) for name, op in ops.items() if op in graph.ops}
    reach = reachable(graph)
    meeting = {
        (a.op, b.op)
        for n, b in enumerate(accesses)
        for a in accesses[:n]
        if a.op != b.op and _may_meet(a, b)
    }
    for a, b in meeting:
        assert index[b] in reach[index[a]], (a, b)
    names = {position: name for name, position in index.items()}
    for target in range(len(graph.ops)):
        for source, reasons in graph.predecessor_indices(target).items():
            if any(r.kind is not DependenceKind.SSA for r in reasons):
                assert (names[source], names[target]) in meeting
    shuffled = list(range(len(graph.ops)))
    rng.shuffle(shuffled)
    for order in (shuffled, _swap_one(len(graph.ops), rng)):
        if keeps_dependences(
            graph.ops, order, OpSummaries(), OpSummaries(windows=False)
        ):
            position = {op: n for n, op in enumerate(order)}
            for target in range(len(graph.ops)):
                for source in graph.predecessor_indices(target):
                    assert position[source] < position[target]


def _swap_one(count: int, rng: random.Random) -> list[int]:
    """The program order with one op moved earlier."""
    order = list(range(count))
    if count > 1:
        moved = rng.randrange(1, count)
        order.insert(rng.randrange(moved), order.pop(moved))
    return order


def test_the_order_check_sees_slots():
    graph, ops = _graph(
        _kernel(
            _bound_load(0, "a", "c0")
            + _use("u0", "t0")
            + _bound_load(1, "b", "c0")
            + _bound_load(2, "a", "c0")
            + _bound_load(3, "a", "c1")
        )
    )
    positions = {name: graph.index(op) for name, op in ops.items()}

    def moved_before(name: str, before: str) -> list[int]:
        order = list(range(len(graph.ops)))
        order.remove(positions[name])
        order.insert(order.index(positions[before]), positions[name])
        return order

    def kept(order: list[int]) -> bool:
        return keeps_dependences(
            graph.ops, order, OpSummaries(), OpSummaries(windows=False)
        )

    assert kept(moved_before("l1", "u0")), "another allocation"
    assert not kept(moved_before("l2", "u0")), "the slot u0 reads"
    # Without windows, any slot of the allocation: the graph then decides.
    assert not kept(moved_before("l3", "u0"))
    assert ops["u0"] not in graph.predecessors(ops["l3"])
