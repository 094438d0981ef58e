"""Why a list schedule moved ops or held them back, in words (`explain=true`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import pairwise

from xdsl.dialects import func
from xdsl.ir import Block, Operation

from passes.analysis import DependenceGraph
from passes.scheduling import KeyT
from pypto_dialect.walks import closest


def _describe_op(op: Operation) -> str:
    names = [f"%{r.name_hint}" for r in op.results if r.name_hint is not None]
    return op.name + (f" ({', '.join(names)})" if names else "")


def describe_block(block: Block) -> str:
    """`a block of <op> in @<function>`."""
    owner = block.parent_op()
    if owner is None:
        return "a detached block"
    function = closest(owner, func.FuncOp)
    where = f" in @{function.sym_name.data}" if function is not None else ""
    return f"a block of {owner.name}{where}"


def explain_order(
    graph: DependenceGraph,
    keys: Sequence[KeyT],
    order: Sequence[int],
    moved: Sequence[int],
    chains: Mapping[str, Sequence[int]] | None = None,
) -> list[str]:
    """
    One line per op that was moved, or held back by a dependence (emitted
    after an op of larger key): `#old -> #new op: moved, held by #p op: why`,
    where `#p` is the predecessor that released it last; with `chains` (ops
    kept in order per engine, by name), the op before it on its engine counts
    as a predecessor too.
    """
    chained: dict[int, dict[int, str]] = {}
    for name, chain in (chains or {}).items():
        for earlier, later in pairwise(chain):
            chained.setdefault(later, {})[earlier] = f"keeps its place on {name}"
    position = {index: pos for pos, index in enumerate(order)}
    moved_set = set(moved)
    lines: list[str] = []
    largest: KeyT | None = None
    for pos, index in enumerate(order):
        parts: list[str] = []
        if index in moved_set:
            parts.append("moved")
        if largest is not None and keys[index] < largest:
            predecessors = graph.predecessor_indices(index)
            on_engine = chained.get(index, {})
            binding = max([*predecessors, *on_engine], key=position.__getitem__)
            reasons = (
                "; ".join(sorted(str(r) for r in predecessors.get(binding, ())))
                or on_engine[binding]
            )
            parts.append(
                f"held by #{binding} {_describe_op(graph.ops[binding])}: {reasons}"
            )
        if parts:
            op = _describe_op(graph.ops[index])
            lines.append(f"  #{index} -> #{pos} {op}: {', '.join(parts)}")
        largest = keys[index] if largest is None else max(largest, keys[index])
    return lines
