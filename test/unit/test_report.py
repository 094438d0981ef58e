"""
`pypto-report` and the `pipeline-report` pass: the before/after table, the
advisor, JSON, trace and plot outputs, and errors as messages.
"""

from __future__ import annotations

import builtins
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ir_integrity import check_integrity
from xdsl.utils.exceptions import PassFailedException

from passes.pipeline_report import PipelineReportPass
from passes.schedule import report as schedule_report
from passes.schedule.engines import default_costs, default_costs_text
from pypto_dialect.checked import parse_module
from pypto_dialect.context import pypto_context
from pypto_dialect.tools.report import main

ROOT = Path(__file__).parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.mlir"))
PYPTO_EXAMPLES = sorted((ROOT / "examples" / "pypto").glob("*.py"))
ADD_ONE = str(ROOT / "examples" / "add_one.mlir")
BOTH = "lower-pipeline-loops,canonicalize-io-order"
BIN = Path(sys.executable).parent


def pypto_report(
    capsys: pytest.CaptureFixture[str], *args: str
) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of `pypto-report args`."""
    code = main(list(args))
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return code, out, err


def table(out: str) -> dict[str, list[str]]:
    """The rows of a one-loop report, by label (the cells after it)."""
    rows: dict[str, list[str]] = {}
    for line in out.splitlines()[1:]:
        if not line.strip():
            break
        label, *cells = line.strip().split("  ")
        rows[label.strip()] = [cell.strip() for cell in cells if cell.strip()]
    return rows


@pytest.mark.slow
def test_add_one_table_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    plot = tmp_path / "out.svg"
    code, out, err = pypto_report(
        capsys, ADD_ONE, "--passes", BOTH, "--plot", str(plot)
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        f"@add_one: pypto.pipeline at {ADD_ONE}:6:3, stages 4"
    )
    rows = table(out)
    assert rows["cycles per original iteration"] == ["before", "after"]
    # From the bundled cost table: a tile is 128 f32 = 512 bytes; its load
    # takes MTE2's latency 64 + 512 / 64 = 72, the adds VECTOR's 8 + 512 / 256
    # = 10, a flag the sync latency 16.
    assert rows["busy MTE2"] == ["72.0", "72.0"]
    # Before: the next load overwrites %t, after the add read it: load 72, a
    # flag 16, add 10, a flag 16 = 114. After: MTE2-bound, 72. Efficiency
    # 72 / 114 = 63.2%, speed-up 114 / 72 = 1.58x; vec bytes: %t and %y, 2 x
    # 512, before, and 4 stages of them after.
    assert rows["efficiency (bound / time)"] == ["63.2%", "100.0%"]
    assert rows["speed-up"] == ["1.58x"]
    assert rows["peak vec bytes (of 196608)"] == ["1024", "4096"]
    assert "<svg" in plot.read_text()


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_gain_from_the_passes(capsys: pytest.CaptureFixture[str], path: Path):
    code, out, _ = pypto_report(capsys, str(path), "--passes", BOTH)
    assert code == 0
    rows = table(out)
    before, after = (float(t) for t in rows["modelled time"])
    assert after < before
    assert float(rows["speed-up"][0].rstrip("x")) > 1
    assert all(cell.endswith("%") for cell in rows["efficiency (bound / time)"])


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_advisor_answers_every_example(capsys: pytest.CaptureFixture[str], path: Path):
    code, out, _ = pypto_report(capsys, str(path), "--suggest-stages")
    assert code == 0
    advice = out[out.index("stages advisor: ") :].splitlines()
    assert advice[1].split() == [
        "stages",
        "time",
        "bound",
        "efficiency",
        *advice[1].split()[4:],
    ]
    assert [line.split()[0] for line in advice[2:10]] == [str(s) for s in range(1, 9)]
    assert advice[10].startswith("  suggestion: stages ")


def test_advisor_answers(capsys: pytest.CaptureFixture[str]):
    answers = {}
    for path in EXAMPLES:
        _, out, _ = pypto_report(capsys, str(path), "--suggest-stages")
        answers[path.stem] = out[out.index("suggestion: ") :].splitlines()[0]
    assert answers == {
        "add_one": "suggestion: stages 2 (the smallest within 5% of the bound that fits)",
        "matmul_k_loop": "suggestion: stages 2 (the smallest within 5% of the bound that fits)",
        "row_softmax": "suggestion: stages 4 (the fastest that fits; none is within 5% of the bound)",
    }


def test_without_passes_reports_the_kernel_as_it_is(capsys: pytest.CaptureFixture[str]):
    code, out, _ = pypto_report(capsys, ADD_ONE)
    assert code == 0
    rows = table(out)
    assert rows["cycles per iteration"] == ["now"]
    # Load 72 + flag 16 + adds 10 + flag 16 (test_add_one_table_and_plot).
    assert rows["modelled time"] == ["114.0"]
    assert "speed-up" not in rows


def test_trace_has_one_track_per_engine(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    trace = tmp_path / "trace.json"
    path = str(ROOT / "examples" / "matmul_k_loop.mlir")
    assert pypto_report(capsys, path, "--passes", BOTH, "--trace", str(trace))[0] == 0
    events: list[dict[str, Any]] = json.loads(trace.read_text())["traceEvents"]
    processes = {
        e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"
    }
    assert sorted(processes.values()) == [
        f"@matmul_k_loop: pypto.pipeline at {path}:9:3, stages 2: {state}"
        for state in ("after", "before")
    ]
    for pid, name in processes.items():
        tracks = {
            e["tid"]: e["args"]["name"]
            for e in events
            if e["pid"] == pid and e["name"] == "thread_name"
        }
        # The lowered body adds `arith.addi` for the second copy's index.
        scalar = ["SCALAR"] if name.endswith("after") else []
        assert sorted(tracks.values()) == sorted(["MTE2", "MTE1", "CUBE", *scalar])
        ops = [e for e in events if e["pid"] == pid and e["ph"] == "X"]
        assert {e["tid"] for e in ops} == set(tracks)
        assert all(e["cat"] == tracks[e["tid"]] and e["dur"] >= 0 for e in ops)
        loads = [e for e in ops if e["name"].startswith("pypto.tile.load")]
        assert {tracks[e["tid"]] for e in loads} == {"MTE2"}
        # The same three iterations' worth of work before and after: 2 x 3 x 2 loads.
        assert len(loads) == 12


def test_json_report(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    out_path = tmp_path / "report.json"
    code, _, _ = pypto_report(
        capsys, ADD_ONE, "--passes", BOTH, "--json", str(out_path), "--suggest-stages"
    )
    assert code == 0
    data = json.loads(out_path.read_text())
    assert data["input"] == ADD_ONE
    assert data["passes"] == BOTH
    (loop,) = data["loops"]
    assert loop["location"] == f"{ADD_ONE}:6:3"
    assert loop["induction_var"] == "i"
    assert loop["before"]["time_per_iteration"] == 114
    assert loop["after"]["time_per_iteration"] == 72
    assert loop["after"]["iterations_per_loop_iteration"] == 4
    assert loop["after"]["peak_bytes"] == {"vec": 4096}
    assert loop["speedup"] == pytest.approx(114 / 72)
    (advice,) = data["advisor"]
    assert advice["suggestion"] == 2
    assert [c["stages"] for c in advice["candidates"]] == list(range(1, 9))


@pytest.mark.parametrize("path", PYPTO_EXAMPLES, ids=[p.stem for p in PYPTO_EXAMPLES])
def test_pypto_input(capsys: pytest.CaptureFixture[str], path: Path):
    code, out, _ = pypto_report(capsys, str(path), "--passes", BOTH)
    assert code == 0
    assert out.startswith(f"@{path.stem}: pypto.pipeline at {path}:")
    before, after = (float(t) for t in table(out)["modelled time"])
    assert after < before


def test_over_capacity_is_a_warning(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    costs = json.loads(default_costs_text())
    costs["capacities"]["vec"] = 2048
    path = tmp_path / "small.json"
    path.write_text(json.dumps(costs))
    code, out, err = pypto_report(
        capsys, ADD_ONE, "--passes", BOTH, "--costs", str(path)
    )
    assert code == 0
    assert table(out)["peak vec bytes (of 2048)"] == ["1024", "4096 OVER"]
    assert err == (
        f"{ADD_ONE}:6:3: warning: after the passes, vec needs 4096 bytes, "
        "more than its capacity of 2048\n"
    )


def test_print_costs(capsys: pytest.CaptureFixture[str]):
    code, out, _ = pypto_report(capsys, "-", "--print-costs")
    assert code == 0
    assert out == default_costs_text()


# --------------------------------------------------------------------------- #
# Errors
# --------------------------------------------------------------------------- #


def test_bad_cost_file(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    costs = json.loads(default_costs_text())
    costs["engines"]["MTE4"] = costs["engines"].pop("MTE2")
    path = tmp_path / "costs.json"
    path.write_text(json.dumps(costs))
    code, out, err = pypto_report(capsys, ADD_ONE, "--costs", str(path))
    assert (code, out) == (1, "")
    assert err == (
        f"{path}: error: engines: unknown engine 'MTE4' (known: SCALAR, MTE2, "
        "MTE1, VECTOR, CUBE, FIXPIPE, MTE3, AIC_TO_AIV, AIV_TO_AIC)\n"
    )


def test_missing_cost_file(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = tmp_path / "none.json"
    code, _, err = pypto_report(capsys, ADD_ONE, "--costs", str(path))
    assert code == 1
    assert (
        err == f"{path}: error: cannot read the cost table: No such file or directory\n"
    )


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("k.mlir", "func.func @f() {\n  %x = arith.constant : index\n}\n", ":2:"),
        (
            "k.txt",
            "",
            "pypto-report: error: cannot read {path}: unknown file extension '.txt' (known: .mlir, .py, .pypto)",
        ),
        (
            "k",
            "",
            "pypto-report: error: cannot read {path}: no file extension (known: .mlir, .py, .pypto)",
        ),
        ("k.mlir", "\xff", None),
    ],
)
def test_bad_input(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    name: str,
    text: str,
    message: str | None,
):
    path = tmp_path / name
    if message is None:
        path.write_bytes(b"\xff")
        message = "pypto-report: error: cannot read {path}: not UTF-8 text (byte 0xff at line 1, column 1)"
    else:
        path.write_text(text)
    code, out, err = pypto_report(capsys, str(path))
    assert (code, out) == (1, "")
    assert message.format(path=path) in err.splitlines()[0]
    assert "error:" in err


def test_missing_input(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = tmp_path / "none.mlir"
    code, _, err = pypto_report(capsys, str(path))
    assert code == 1
    assert (
        err == f"pypto-report: error: cannot read {path}: No such file or directory\n"
    )


def test_verifier_error_is_located(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    path = tmp_path / "bad.mlir"
    path.write_text(
        "func.func @f(%x: !pypto.tensor<128x64xf32>, %i: index) {\n"
        "  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>\n"
        "  func.return\n"
        "}\n"
    )
    code, _, err = pypto_report(capsys, str(path))
    assert code == 1
    assert err.startswith(
        f"{path}:2:3: error: 'pypto.tile.load' op expected 2 tensor offsets"
    )


def test_unknown_pass(capsys: pytest.CaptureFixture[str]):
    code, _, err = pypto_report(capsys, ADD_ONE, "--passes", "no-such-pass")
    assert code == 1
    assert err.startswith(
        "pypto-report: error: --passes: unknown pass 'no-such-pass' "
        "(pypto-opt --list-passes lists the passes)"
    )


def test_pass_failure_is_located(capsys: pytest.CaptureFixture[str]):
    code, _, err = pypto_report(capsys, ADD_ONE, "--passes", "canonicalize-io-order")
    assert code == 1
    assert err.startswith(
        f"{ADD_ONE}:6:3: error: after --passes 'canonicalize-io-order': "
        "'pypto.pipeline' op pypto.pipeline with stages 4 is not lowered yet"
    )


def test_advisor_reports_failing_candidates(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    # A dynamic trip count: stages 8 makes 8 + 28 copies, over max-copies=20.
    path = tmp_path / "dynamic.mlir"
    path.write_text(
        (ROOT / "examples" / "add_one.mlir")
        .read_text()
        .replace(
            "%out: !pypto.tensor<1024xf32>)",
            "%out: !pypto.tensor<1024xf32>, %n: index)",
        )
        .replace("to %c8 step", "to %n step")
    )
    code, out, _ = pypto_report(
        capsys,
        str(path),
        "--suggest-stages",
        "--passes",
        "lower-pipeline-loops{max-copies=20},canonicalize-io-order",
    )
    assert code == 0
    assert "  stages 6: lowering would create 21 copies of the loop body" in out
    assert "suggestion: stages 2" in out


def test_plot_needs_matplotlib(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.startswith("matplotlib"):
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    code, _, err = pypto_report(capsys, ADD_ONE, "--plot", str(tmp_path / "p.svg"))
    assert code == 1
    assert err == (
        "pypto-report: error: --plot needs matplotlib: "
        "pip install 'pypto-dialect[report]' (or pip install matplotlib)\n"
    )


def test_internal_error(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(schedule_report, "run_report", broken)
    code = main([ADD_ONE])
    assert code == 70
    assert capsys.readouterr().err.splitlines()[0] == (
        "pypto-report: error: internal error: RuntimeError: boom"
    )


def test_console_script(tmp_path: Path):
    run = subprocess.run(
        [str(BIN / "pypto-report"), ADD_ONE, "--passes", BOTH],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (run.returncode, run.stderr) == (0, "")
    assert "modelled time" in run.stdout


# --------------------------------------------------------------------------- #
# The pass
# --------------------------------------------------------------------------- #


def test_pass_reports_and_changes_nothing(capsys: pytest.CaptureFixture[str]):
    ctx = pypto_context()
    module = parse_module(ctx, Path(ADD_ONE).read_text(), ADD_ONE)
    text = str(module)
    PipelineReportPass(passes=tuple(BOTH.split(",")), suggest_stages=True).apply(
        ctx, module
    )
    check_integrity(module)
    assert str(module) == text
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"@add_one: pypto.pipeline at {ADD_ONE}:6:3, stages 4\n")
    assert "  modelled time" in err
    assert "suggestion: stages 2" in err


def test_pass_errors_are_diagnostics(tmp_path: Path):
    ctx = pypto_context()
    module = parse_module(ctx, Path(ADD_ONE).read_text())
    path = tmp_path / "costs.json"
    path.write_text("{}")
    with pytest.raises(
        PassFailedException,
        match=r"pipeline-report: .*costs.json: the cost table: missing field 'queue_depth'",
    ):
        PipelineReportPass(costs=str(path)).apply(ctx, module)
    with pytest.raises(
        PassFailedException, match="pipeline-report: passes: Unrecognized passes"
    ):
        PipelineReportPass(passes=("nope",)).apply(ctx, module)
    with pytest.raises(
        PassFailedException,
        match="pipeline-report: trip: must be 0 to 18446744073709551615",
    ):
        PipelineReportPass(trip=1 << 64).apply(ctx, module)


# --------------------------------------------------------------------------- #
# Whole loop, sensitivity, costs without a kernel, pictures
# --------------------------------------------------------------------------- #

ROW_SOFTMAX = str(ROOT / "examples" / "row_softmax.mlir")


def test_sensitivity_lists_the_flips(capsys: pytest.CaptureFixture[str]):
    code, out, _ = pypto_report(capsys, ROW_SOFTMAX, "--passes", BOTH, "--sensitivity")
    assert code == 0
    lines = out[out.index("sensitivity: ") :].splitlines()
    assert lines[1].split() == [
        "queue", "depth", "sync", "latency", "time", "efficiency", "whole",
        "loop", "speed-up", "bottleneck", "stages",
    ]  # fmt: skip
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in lines[2:11]}
    assert len(rows) == 9
    # The table's own figures (depth 2, sync 16) are the report's, after.
    report = table(out)
    assert rows["2", "16"][:2] == [
        report["modelled time"][1],
        report["efficiency (bound / time)"][1],
    ]
    assert rows["2", "16"][-1] == "4"
    # A deeper queue lets the loads run ahead: MTE2-bound at depth 8, the
    # time is MTE2's busy time.
    assert report["bottleneck"][1] == "MTE2"
    assert rows["8", "16"][:2] == [report["busy MTE2"][1], "100.0%"]
    assert "  flips: queue depth 4, sync latency 0: advised stages 2 (was 4)" in lines
    assert "  flips: queue depth 8, sync latency 32: advised stages 2 (was 4)" in lines


def test_sensitivity_without_flips(capsys: pytest.CaptureFixture[str]):
    code, out, _ = pypto_report(
        capsys, str(ROOT / "examples" / "matmul_k_loop.mlir"), "--sensitivity"
    )
    assert code == 0
    assert out.rstrip().endswith("  flips: none")


def test_print_costs_needs_no_kernel(capsys: pytest.CaptureFixture[str]):
    code, out, _ = pypto_report(capsys, "--print-costs")
    assert (code, out) == (0, default_costs_text())
    code, out, err = pypto_report(capsys)
    assert (code, out) == (1, "")
    assert (
        err == "pypto-report: error: the kernel is required (but with --print-costs)\n"
    )


@pytest.mark.parametrize("value", ["0", str(1 << 64), "-3"])
def test_trip_is_bounded(capsys: pytest.CaptureFixture[str], value: str):
    with pytest.raises(SystemExit):
        main([ADD_ONE, "--trip", value])
    err = capsys.readouterr().err
    assert "argument --trip: must be 1 to 18446744073709551615" in err
    assert str(1 << 64) not in err


def test_json_has_the_whole_loop(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    out_path = tmp_path / "report.json"
    assert (
        pypto_report(capsys, ADD_ONE, "--passes", BOTH, "--json", str(out_path))[0] == 0
    )
    (loop,) = json.loads(out_path.read_text())["loops"]
    # Before: the last load starts at 2 + 7 x 114 (two scalar ops first) and
    # its iteration takes 72 + 16 + 10 + 16 + 72 more (docs/report.md).
    assert loop["before"]["whole_loop"] == {
        "trip": 8,
        "time": 2 + 7 * 114 + 72 + 16 + 10 + 16 + 72,
        "efficiency": pytest.approx(8 * 72 / 986),
        "note": "",
    }
    assert loop["before"]["cores"] == []
    assert loop["after"]["bottleneck"] == "MTE2"


@pytest.mark.slow
def test_plot_png_is_wide_and_svg_has_titles(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    png, svg = tmp_path / "p.png", tmp_path / "p.svg"
    for path in (png, svg):
        assert (
            pypto_report(capsys, ADD_ONE, "--passes", BOTH, "--plot", str(path))[0] == 0
        )
    width = int.from_bytes(png.read_bytes()[16:20], "big")  # the IHDR chunk
    assert width >= 1600
    text = svg.read_text()
    assert "<title>pypto.tile.load %t on MTE2" in text
    assert "waits in queue" in text and "issue stalled" in text
    assert "(bottleneck)" in text and "steady state" in text
    sizes = [float(size) for size in re.findall(r"font-size: ([0-9.]+)px", text)]
    assert sizes and min(sizes) >= 12


@pytest.mark.parametrize("remainder", ["cascade", "loop"])
def test_whole_loop_time_counts_the_remainder(remainder: str):
    """The remainder after the main loop, copies or a loop, adds to the whole-loop time."""
    from bench.remainder import KERNEL

    ctx = pypto_context()
    module = parse_module(ctx, KERNEL.format(stages=4), "add_one")
    spec = f"lower-pipeline-loops{{remainder={remainder}}},canonicalize-io-order"
    times = {
        trip: schedule_report.run_report(
            ctx,
            module,
            default_costs(),
            schedule_report.pass_pipeline(spec),
            trip=trip,
        )[0].after
        for trip in (8, 10)
    }
    after_8, after_10 = times[8], times[10]
    assert after_8 is not None and after_10 is not None
    assert after_8.whole.time is not None and after_10.whole.time is not None
    assert after_10.whole.time > after_8.whole.time


NESTED_DYNAMIC = ROOT / "test" / "filecheck" / "report" / "not-comparable.mlir"
"""Pipelines of static and dynamic trip counts, one nested in the other."""


def _no_constant(name: str) -> object:
    raise ValueError(f"not strict JSON: {name}")


def test_outputs_are_strict_json_at_the_tables_extremes(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    """The slowest table a check accepts, over the longest trip: every figure finite."""
    from passes.schedule.engines import MAX_FIGURE, MIN_BANDWIDTH

    table = json.loads(default_costs_text())
    for engine in table["engines"].values():
        engine["latency"] = MAX_FIGURE
        engine["bandwidth"] = MIN_BANDWIDTH
    costs = tmp_path / "slow.json"
    costs.write_text(json.dumps(table))
    kernel = NESTED_DYNAMIC
    report, trace = tmp_path / "r.json", tmp_path / "t.json"
    code, out, err = pypto_report(
        capsys,
        *(str(kernel), "--costs", str(costs), "--passes", BOTH),
        *("--trip", str(2**64 - 1), "--json", str(report), "--trace", str(trace)),
        "--strategies",
    )
    assert (code, err) == (0, "")
    assert "nan" not in out and "inf " not in out
    for path in (report, trace):
        json.loads(path.read_text(), parse_constant=_no_constant)
