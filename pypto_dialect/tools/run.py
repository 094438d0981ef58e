"""
`pypto-run`: run a pypto kernel with the numpy interpreter.

    pypto-run kernel.mlir|kernel.py [--entry NAME] [--seed N] [--inputs in.npz]
              [--index NAME=VALUE ...] [--save out.npz] [--passes PIPELINE]

A `.py` (or `.pypto`) file is a PyPTO program (`parse_pypto`), a `.mlir`
file (or `-`, standard input) MLIR; any other extension is refused. The kernel runs on seeded random inputs (see `random_inputs`), or on the
arrays of an `.npz` file (by parameter name; parameters it does not name stay
random), and the tool prints one line per tensor parameter and per result.
A cube kernel that names its vector kernel (`pypto.vector_kernel`) runs
with it, on two cores (`run_group`; the vector kernel's inputs drawn with
seed + 1), and both are printed.
`--passes` runs the kernel again after the pass pipeline, on the same inputs,
and exits with 1 unless every output is bit-identical. Problems are `error:`
lines on stderr and exit code 1, never a traceback; any other exception is an
internal error (exit code 70, see `report_internal_error`).
"""

from __future__ import annotations

import argparse
import sys
import zipfile
from collections.abc import Mapping, Sequence
from io import BytesIO
from typing import TYPE_CHECKING, Any

from xdsl.universe import Universe
from xdsl.utils.exceptions import DiagnosticException, InterpretationError

from pypto_dialect.interpreter_limits import (
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_ITERATIONS,
)
from pypto_dialect.source_text import UnreadableInput, read_input
from pypto_dialect.tools.diagnostics import (
    ToolFailure,
    add_traceback_flag,
    add_version_flag,
    int_at_least,
    report_internal_error,
    reported_diagnostics,
)
from pypto_dialect.tools.inputs import parse_input
from pypto_dialect.tools.inputs import source_name as input_source_name
from pypto_dialect.tools.pipelines import (
    PassFactories,
    PipelineError,
    parse_pipeline,
)

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import PassPipeline

    from pypto_dialect.checked import OpSpans
    from pypto_dialect.interpreter import Array, KernelArg, KernelRun


def main(
    args: Sequence[str] | None = None,
    *,
    available_passes: PassFactories | None = None,
) -> int:
    """
    Entry point of the `pypto-run` console script; returns the exit code.
    `available_passes` (default: every pass of the installed xDSL universes)
    are the passes `--passes` can name.
    """
    options = _argument_parser().parse_args(args)
    try:
        return _run(options, available_passes)
    except ToolFailure as failure:
        print(failure, file=sys.stderr)
        return 1
    except Exception as error:
        return report_internal_error("pypto-run", error, options.traceback)


def _argument_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pypto-run",
        description="Run a pypto kernel with the numpy interpreter.",
    )
    parser.add_argument(
        "kernel",
        help="the .mlir file, or a PyPTO .py file ('-' for MLIR on stdin)",
    )
    parser.add_argument(
        "--entry",
        help="the function to run (default: the only function of the file)",
    )
    parser.add_argument(
        "--seed",
        type=int_at_least(0, "non-negative"),
        default=0,
        help="seed of the random inputs (default: 0)",
    )
    parser.add_argument(
        "--inputs",
        metavar="NPZ",
        help="arrays for the parameters, by name; the others stay random",
    )
    parser.add_argument(
        "--index",
        metavar="NAME=VALUE",
        type=_assignment,
        action="append",
        default=[],
        help="the value of an integer or index parameter (repeatable)",
    )
    parser.add_argument(
        "--save",
        metavar="NPZ",
        help="save the outputs: tensors by parameter name, results as result#i",
    )
    parser.add_argument(
        "--passes",
        metavar="PIPELINE",
        help="also run after this pass pipeline (e.g. "
        "'lower-pipeline-loops,canonicalize-io-order') and check that every "
        "output is bit-identical",
    )
    parser.add_argument(
        "--max-iterations",
        metavar="N",
        type=int_at_least(0, "non-negative"),
        default=DEFAULT_MAX_ITERATIONS,
        help="the most loop iterations and branches one run may take, so that "
        f"no kernel runs without end (default: {DEFAULT_MAX_ITERATIONS:,})",
    )
    parser.add_argument(
        "--max-elements",
        metavar="N",
        type=int_at_least(1, "positive"),
        default=DEFAULT_MAX_ELEMENTS,
        help="the most elements one tensor or tile may hold, so that no type asks "
        f"for more memory than the machine has (default: {DEFAULT_MAX_ELEMENTS:,})",
    )
    add_version_flag(parser, "pypto-run")
    add_traceback_flag(parser)
    return parser


def _assignment(text: str) -> tuple[str, int]:
    name, equals, value = text.partition("=")
    try:
        if not equals or not name:
            raise ValueError
        return name.removeprefix("%"), int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected NAME=INTEGER, got {text!r}"
        ) from None


def _run(options: argparse.Namespace, available_passes: PassFactories | None) -> int:
    from pypto_dialect.checked import verify_module
    from pypto_dialect.context import pypto_context
    from pypto_dialect.interpreter import compare_runs, find_kernel, random_inputs
    from pypto_dialect.walks import walk_ops

    ctx = pypto_context()
    source_name = input_source_name(options.kernel)
    op_spans: OpSpans = {}
    module = parse_input(ctx, options.kernel, "pypto-run", op_spans)
    pipeline = (
        None if options.passes is None else _pipeline(options.passes, available_passes)
    )
    overrides: dict[str, KernelArg] = {}
    if options.inputs is not None:
        overrides |= _load_inputs(options.inputs)
    overrides |= dict(options.index)

    with reported_diagnostics(source_name, op_spans, name_op=_names_its_op):
        verify_module(module)
        entry = (options.entry or _only_kernel(module, source_name)).removeprefix("@")
        kernels = _kernels(module, entry)
        inputs = {
            name: random_inputs(
                find_kernel(module, name),
                options.seed + index,
                overrides,
                max_elements=options.max_elements,
            )
            for index, name in enumerate(kernels)
        }
        runs = _execute(module, kernels, inputs, options)
    for index, (name, run) in enumerate(runs.items()):
        print(_summary(name, options, options.seed + index, inputs[name], run))
    if options.save is not None:
        _save(options.save, runs)
    if pipeline is None:
        return 0

    transformed = module.clone()
    # The ops that the passes keep (or move) keep their source locations.
    originals = zip(walk_ops(transformed), walk_ops(module), strict=True)
    op_spans |= {copy: op_spans[op] for copy, op in originals if op in op_spans}
    context = f"after --passes '{options.passes}'"
    with reported_diagnostics(source_name, op_spans, context, name_op=_names_its_op):
        pipeline.apply(ctx, transformed)
        verify_module(transformed)
        after = _execute(transformed, kernels, inputs, options)
    differences = [
        f"@{name}: {difference}" if len(runs) > 1 else difference
        for name, run in runs.items()
        for difference in compare_runs(run, after[name])
    ]
    outputs = sum(len(run.outputs()) for run in runs.values())
    if not differences:
        print(f"{context}: all {outputs} outputs bit-identical")
        return 0
    print(f"{context}: {len(differences)} of {outputs} outputs differ")
    for difference in differences:
        print(f"  {difference}")
    return 1


def _kernels(module: ModuleOp, entry: str) -> list[str]:
    """The kernels the run of `@entry` runs: it, and its vector kernel if it names one."""
    from pypto_dialect.cores import VECTOR_KERNEL
    from pypto_dialect.interpreter import find_group, find_kernel

    if VECTOR_KERNEL not in find_kernel(module, entry).attributes:
        return [entry]
    return [entry, find_group(module, entry).vector.sym_name.data]


def _execute(
    module: ModuleOp,
    kernels: Sequence[str],
    inputs: Mapping[str, Mapping[str, KernelArg]],
    options: argparse.Namespace,
) -> dict[str, KernelRun]:
    """Run the kernel, or the cube kernel and its vector kernel together."""
    from pypto_dialect.interpreter import run_group, run_kernel

    limits = {
        "max_iterations": options.max_iterations,
        "max_elements": options.max_elements,
    }
    if len(kernels) == 1:
        (entry,) = kernels
        return {entry: run_kernel(module, entry, inputs[entry], **limits)}
    cube, vector = kernels
    group = run_group(module, cube, inputs[cube], inputs[vector], **limits)
    return {cube: group.cube, vector: group.vector}


def _names_its_op(error: DiagnosticException) -> bool:
    """Interpretation errors name their op themselves."""
    return not isinstance(error, InterpretationError)


def _pipeline(spec: str, available_passes: PassFactories | None) -> PassPipeline:
    if available_passes is None:
        available_passes = Universe.get_multiverse().all_passes
    try:
        return parse_pipeline(spec, available_passes)
    except PipelineError as error:
        raise ToolFailure(f"pypto-run: error: --passes: {error}") from None


def _only_kernel(module: ModuleOp, source_name: str) -> str:
    from pypto_dialect.interpreter import kernel_names

    names = kernel_names(module)
    if len(names) == 1:
        return names[0]
    if not names:
        raise ToolFailure(
            f"{source_name}: error: no function to run: the module has no "
            "func.func with a body"
        )
    listed = ", ".join(f"@{name}" for name in names)
    raise ToolFailure(
        f"pypto-run: error: choose the function to run with --entry "
        f"(functions: {listed})"
    )


def _load_inputs(path: str) -> dict[str, Array]:
    import numpy as np

    try:
        data = read_input(path)
        if not zipfile.is_zipfile(BytesIO(data)):
            raise ValueError("not an .npz archive")
        with np.load(BytesIO(data), allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except (UnreadableInput, ValueError, zipfile.BadZipFile) as error:
        raise ToolFailure(f"{path}: error: cannot read the inputs: {error}") from None


def _save(path: str, runs: Mapping[str, KernelRun]) -> None:
    """The outputs, by name (`kernel.name` when kernels run together)."""
    import numpy as np

    outputs = {
        name if len(runs) == 1 else f"{kernel}.{name}": array
        for kernel, run in runs.items()
        for name, array in run.outputs().items()
    }
    # `np.savez(path, **outputs)` would clash with outputs named `file`.
    try:
        with zipfile.ZipFile(path, "w") as archive:
            for name, array in outputs.items():
                with archive.open(f"{name}.npy", "w") as member:
                    np.lib.format.write_array(member, array, allow_pickle=False)
    except OSError as error:
        raise ToolFailure(f"{path}: error: cannot save the outputs: {error}") from None


# --------------------------------------------------------------------------- #
# The summary
# --------------------------------------------------------------------------- #


def _summary(
    entry: str,
    options: argparse.Namespace,
    seed: int,
    inputs: Mapping[str, KernelArg],
    run: KernelRun,
) -> str:
    import numpy as np

    source = f"inputs {options.inputs}, " if options.inputs is not None else ""
    rows: list[tuple[str, str]] = []
    for name, final in run.tensors.items():
        written = final.tobytes() != np.asarray(inputs[name]).tobytes()
        rows.append(
            (
                f"%{name}",
                f"{'written  ' if written else 'unchanged'}  {_describe(final)}",
            )
        )
    rows.extend(
        (name, _describe(value))
        for name, value in run.outputs().items()
        if name not in run.tensors
    )
    width = max((len(name) for name, _ in rows), default=0)
    lines = [f"@{entry}: {source}seed {seed}"]
    lines.extend(f"  {name.ljust(width)}  {text}" for name, text in rows)
    return "\n".join(lines)


def _describe(array: Array) -> str:
    """Shape, element type, a few statistics and a checksum of the bits."""
    import hashlib

    import numpy as np

    from pypto_dialect.interpreter import shaped_type_name

    if array.ndim == 0:
        return f"{shaped_type_name(array)} {array[()]!s}"
    values: Any = array.astype(np.float64)
    with np.errstate(all="ignore"):
        stats = (
            f"min {values.min():.6g}  max {values.max():.6g}  mean {values.mean():.6g}"
        )
    digest = hashlib.sha256(array.tobytes()).hexdigest()[:12]
    return f"{shaped_type_name(array)}  {stats}  sha256 {digest}"


if __name__ == "__main__":
    sys.exit(main())
