"""
What `lower-pipeline-loops` costs per op it creates, against two references
for the same output: xDSL's `scf-for-loop-unroll` on the `scf.for` twin
(lower / unroll), and a floor, creating the same ops with `Operation.create`
alone (same op classes, operands, properties and result types; nothing
inserted, nothing tagged).

    python -m bench floor [--sizes OPS ...] [--stages F ...] [--repeat N]

Cases: the `unroll` family at each size (ops after lowering; default about
10,000), whose loops have as many iterations as stages so that both passes
make the same copies, and `stages-static` / `stages-dynamic` at each F (no
twin: no lower / unroll). Each run parses afresh, collects, then times the lowering,
the floor (the collector paused, as the pass pauses it) and the unrolling in turn;
the table gives medians and microseconds per created op.
"""

from __future__ import annotations

import gc
import statistics
import time
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.transforms.scf_for_loop_unroll import ScfForLoopUnrollPass

from bench import command_line
from bench.cases import FAMILIES, MAX_COPIES, Case, Scale, parse
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from pypto_dialect.collector import collector_paused
from pypto_dialect.context import pypto_context
from pypto_dialect.walks import walk_ops

FLOOR_TARGET = 1.3
"""The target: the lowering at most 1.3 times the floor at 10,000 ops."""

OpSpec = tuple[
    type[Operation], tuple[SSAValue, ...], dict[str, Attribute], tuple[Attribute, ...]
]
"""What `Operation.create` gets for one op: class, operands, properties, result types."""


@dataclass(frozen=True)
class FloorResult:
    """Medians (seconds) of one case, and the ops the lowering created."""

    case: Case
    created: int
    lower: float
    floor: float
    unroll: float | None
    created_by_unroll: int | None


def created_ops(ctx: Context, module: ModuleOp, pass_: ModulePass) -> list[Operation]:
    """The ops `pass_` adds to `module`, in program order (untimed)."""
    before = {id(op) for op in walk_ops(module)}
    pass_.apply(ctx, module)
    return [op for op in walk_ops(module) if id(op) not in before]


def specs(ops: Sequence[Operation]) -> list[OpSpec]:
    """The arguments of `Operation.create` that rebuild each op of `ops` (no regions)."""
    return [
        (
            type(op),
            tuple(op.operands),
            dict(op.properties),
            tuple(result.type for result in op.results),
        )
        for op in ops
    ]


def create_all(ops: Sequence[OpSpec]) -> list[Operation]:
    """The floor: every op of `ops` made by `Operation.create`."""
    return [
        cls.create(operands=operands, properties=properties, result_types=types)
        for cls, operands, properties, types in ops
    ]


def _timed(ctx: Context, module: ModuleOp, pass_: ModulePass) -> float:
    gc.collect()
    start = time.perf_counter()
    pass_.apply(ctx, module)
    return time.perf_counter() - start


def floor_time(ops: Sequence[OpSpec]) -> float:
    """
    The floor's time, with the collector paused as the lowering pauses it
    (`collector_paused`: the young objects are scanned once, on the way out).
    """
    gc.collect()
    start = time.perf_counter()
    with collector_paused():
        made = create_all(ops)
    elapsed = time.perf_counter() - start
    for op in made:  # the floor's uses out of the lowered module's values
        op.drop_all_references()
    return elapsed


def measure(case: Case, repeat: int) -> FloorResult:
    """The three times of `case`, `repeat` runs each, alternating."""
    ctx = pypto_context()
    lower = LowerPipelineLoopsPass(max_copies=MAX_COPIES)
    unroll = ScfForLoopUnrollPass()
    samples: dict[str, list[float]] = {"lower": [], "floor": [], "unroll": []}
    created: list[Operation] = []
    created_by_unroll: int | None = None
    for _ in range(repeat):
        module = parse(ctx, case.text)
        samples["lower"].append(_timed(ctx, module, lower))
        if not created:  # the same output every run: specs from a second lowering
            created = created_ops(ctx, parse(ctx, case.text), lower)
        samples["floor"].append(floor_time(specs(created)))
        if case.unroll_twin is not None:
            if created_by_unroll is None:
                twin = parse(ctx, case.unroll_twin)
                created_by_unroll = len(created_ops(ctx, twin, unroll))
            twin = parse(ctx, case.unroll_twin)
            samples["unroll"].append(_timed(ctx, twin, unroll))
    medians = {k: statistics.median(v) for k, v in samples.items() if v}
    return FloorResult(
        case,
        len(created),
        medians["lower"],
        medians["floor"],
        medians.get("unroll"),
        created_by_unroll,
    )


def table(results: Sequence[FloorResult]) -> str:
    """Markdown: milliseconds, microseconds per created op, and the ratios."""
    lines = [
        "| case | created | lower (ms) | floor (ms) | unroll (ms) "
        "| lower / created (us) | floor / created (us) | lower / floor | lower / unroll |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        ratio_e = "n/a"
        unroll = "n/a"
        if r.unroll is not None and r.created_by_unroll:
            unroll = f"{r.unroll * 1e3:.1f}"
            ratio_e = f"{(r.lower / r.created) / (r.unroll / r.created_by_unroll):.2f}"
        lines.append(
            f"| {r.case.family} {r.case.parameter} | {r.created:,} "
            f"| {r.lower * 1e3:.1f} | {r.floor * 1e3:.1f} | {unroll} "
            f"| {r.lower / r.created * 1e6:.2f} | {r.floor / r.created * 1e6:.2f} "
            f"| {r.lower / r.floor:.2f} | {ratio_e} |"
        )
    return "\n".join(lines)


def cases(scale: Scale) -> list[Case]:
    """The `unroll` cases at `scale.sizes`, the `stages-*` ones at `scale.stages`."""
    chosen = ("unroll", "stages-static", "stages-dynamic")
    return [
        family.make(parameter)
        for family in FAMILIES
        if family.name in chosen
        for parameter in family.parameters(scale)
    ]


def main(argv: Sequence[str] | None = None) -> None:
    parser = command_line(
        "floor",
        "The lowering per created op against scf-for-loop-unroll and against Operation.create alone.",
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--stages", type=int, nargs="+", default=[64])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    results = [
        measure(case, args.repeat) for case in cases(Scale(args.sizes, args.stages))
    ]
    print(table(results))
    print(f"\ntarget: lower / floor <= {FLOOR_TARGET} at 10,000 ops")
