"""
The `engine` and `modelled` orders as the `canonicalize-io-order` driver calls
them. The driver imports this module only when one of them is asked for, so
the default order does not load the schedule model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

from xdsl.ir import Operation
from xdsl.utils.exceptions import PassFailedException

from passes.analysis import DependenceGraph
from passes.analysis.engines import CostModel, CostTableError, default_costs, load_costs
from passes.analysis.timeline import Loop
from passes.io_order_policy import ScheduleKey
from passes.order_engine import engine_chains, engine_keys, op_costs, prefetch_distance
from passes.order_model import BodyModel
from passes.order_modelled import SEARCH_LIMIT, Candidate, Choice, choose_order
from pypto_dialect.pipeline import PipelinePolicy

bundled_costs = cache(default_costs)
"""The bundled cost table, read once (a `CostModel` is immutable)."""


def read_costs(path: str) -> CostModel:
    """The cost table in `path`, or a diagnostic naming the problem."""
    try:
        return load_costs(path)
    except CostTableError as error:
        raise PassFailedException(
            f"canonicalize-io-order: {error.where(path)}: {error.message}"
        ) from None


def engine_priorities(
    ops: Sequence[Operation], policy: PipelinePolicy, model: CostModel
) -> tuple[list[ScheduleKey], dict[str, list[int]]]:
    """The `engine` order's keys of `ops` and its chains (one per engine)."""
    costs = op_costs(ops, model)
    keys = engine_keys(ops, policy, prefetch_distance(ops, costs, model))
    return keys, engine_chains(costs)


def is_searched(ops: Sequence[Operation]) -> bool:
    """Whether `order=modelled` searches a body of these ops (its size limit)."""
    return len(ops) <= SEARCH_LIMIT


@dataclass(frozen=True)
class ModelledSearch:
    """`order=modelled` on the body of `loop`."""

    loop: Loop
    policy: PipelinePolicy
    model: CostModel

    def choose(
        self,
        graph: DependenceGraph,
        category: Sequence[int],
        keys: Sequence[ScheduleKey],
    ) -> Choice:
        """The order kept for the body (`category`: that order, by `keys`)."""
        body = BodyModel.prepare(self.loop, self.model)
        candidate = Candidate("category", tuple(category), keys)
        return choose_order(body, graph, self.policy, candidate)
