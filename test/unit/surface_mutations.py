"""
The newer surfaces for the mutation campaign (`test_mutations.py`): per
mutant that verifies, one of the orders of `canonicalize-io-order` with a
cost table (`order=engine`, `order=modelled`), `lower-pipeline-to-slots`
with a table, `lower-pipeline-loops{auto-stages=true}` (either remainder),
or `pypto-report` with a handful of its options; the table is the bundled
one or one with a field set to an extreme (`mutated_costs`). The choice is
drawn from the mutant's text, so a mutant always takes the same surface.
"""

from __future__ import annotations

import json
import random
import zlib
from contextlib import redirect_stderr, redirect_stdout
from io import StringIO
from pathlib import Path
from typing import Any

from passes.canonicalize_io_order import CanonicalizeIOOrderPass, OrderName
from passes.lower_pipeline_loops import LowerPipelineLoopsPass
from passes.lower_pipeline_to_slots import LowerPipelineToSlotsPass
from passes.schedule.engines import (
    CostTableError,
    Engine,
    default_costs_text,
    parse_costs,
)
from pypto_dialect.tools.diagnostics import INTERNAL_ERROR
from pypto_dialect.tools.report import main as report_main
from pypto_dialect.types import MemorySpace

ORDER_SURFACES: dict[str, OrderName] = {
    "order=engine": "engine",
    "order=modelled": "modelled",
}
"""The surfaces that reorder with the mutated table, and their order."""
SURFACES = (*ORDER_SURFACES, "slots", "auto-stages", "report")
EXTREMES: tuple[object, ...] = (
    0,
    1,
    0.5,
    2**-20,
    2**-21,
    5e-324,
    1e-300,
    64,
    65,
    10**6,
    2**53,
    2**53 + 1,
    1e300,
    -1,
    float("nan"),
    float("inf"),
    True,
    "8",
    None,
    [],
)
"""The values a mutated table gives a field (`None` deletes it)."""
REPORT_OPTIONS: tuple[tuple[str, ...], ...] = (
    ("--passes", "lower-pipeline-loops,canonicalize-io-order"),
    ("--passes", "lower-pipeline-loops{remainder=loop},canonicalize-io-order"),
    ("--passes", "lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order"),
    ("--suggest-stages",),
    ("--strategies",),
    ("--trip", "1"),
    ("--trip", "18446744073709551615"),
    ("--sensitivity",),
)


def choose(text: str) -> random.Random:
    """The mutant's own random choices (its text's CRC as the seed)."""
    return random.Random(zlib.crc32(text.encode("utf-8", "surrogatepass")))


def mutated_costs(rng: random.Random) -> str:
    """The bundled table, half the time with one field set to an extreme."""
    table: dict[str, Any] = json.loads(default_costs_text())
    if rng.random() < 0.5:
        return json.dumps(table)
    engine = str(rng.choice(list(Engine)))
    space = str(rng.choice(list(MemorySpace)))
    path = rng.choice(
        [
            ["queue_depth", "value"],
            ["sync_latency", "value"],
            ["events_per_pair"],
            ["engines", engine, "latency"],
            ["engines", engine, "bandwidth"],
            ["capacities", space],
        ]
    )
    entry = table
    for key in path[:-1]:
        entry = entry[key]
    value = rng.choice(EXTREMES)
    if value is None:
        entry.pop(path[-1], None)
    else:
        entry[path[-1]] = value
    return json.dumps(table)


def surface_passes(rng: random.Random, surface: str, costs: Path) -> tuple[Any, ...]:
    """The passes of a pass surface, with the table `costs`."""
    lower = LowerPipelineLoopsPass(remainder=rng.choice(["cascade", "loop"]))
    reorder = CanonicalizeIOOrderPass()
    if surface in ORDER_SURFACES:
        order = ORDER_SURFACES[surface]
        return (lower, CanonicalizeIOOrderPass(order=order, costs=str(costs)))
    if surface == "slots":
        return (LowerPipelineToSlotsPass(costs=str(costs)), lower, reorder)
    auto = LowerPipelineLoopsPass(auto_stages=True, remainder=lower.remainder)
    return (auto, reorder)


def _no_constant(name: str) -> object:
    raise ValueError(f"not strict JSON: {name}")


def run_report(
    text: str, rng: random.Random, directory: Path, costs: Path | None
) -> str:
    """
    `pypto-report` on the mutant with two of `REPORT_OPTIONS`, `--json` and
    `--trace`: an internal error fails; its JSON must be strict.
    """
    kernel = directory / "mutant.mlir"
    kernel.write_text(text, encoding="utf-8", errors="surrogatepass")
    outputs = directory / "report.json", directory / "trace.json"
    for output in outputs:
        output.unlink(missing_ok=True)
    options = [part for pick in rng.sample(REPORT_OPTIONS, 2) for part in pick]
    if costs is not None:
        options += ["--costs", str(costs)]
    args = [
        str(kernel),
        *options,
        "--json",
        str(outputs[0]),
        "--trace",
        str(outputs[1]),
    ]
    stderr = StringIO()
    with redirect_stdout(StringIO()), redirect_stderr(stderr):
        code = report_main([*args, "--traceback"])
    if code == INTERNAL_ERROR:
        raise AssertionError(f"pypto-report {' '.join(options)}: {stderr.getvalue()}")
    if code != 0:
        return "report: error"
    for output in outputs:
        json.loads(output.read_text(), parse_constant=_no_constant)
    return "report: written, strict JSON"


def usable_costs(rng: random.Random, directory: Path) -> tuple[Path, bool]:
    """
    A (maybe mutated) table written in `directory`, and whether it checks:
    only `CostTableError` may say no.
    """
    path = directory / "costs.json"
    text = mutated_costs(rng)
    path.write_text(text)
    try:
        parse_costs(text, str(path))
    except CostTableError:
        return path, False
    return path, True
