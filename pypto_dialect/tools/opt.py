"""
`pypto-opt`: `xdsl-opt` with compiler-style error reporting.

It takes `xdsl-opt`'s flags (and `--traceback`) and behaves the same, except
that a diagnostic (parse error, verifier error, pass failure) is printed to
stderr as `file:line:col: error: message` followed by the offending source
line, and input that is not text, an unknown file extension or a bad pass
pipeline is one `error:` line; the exit code is 1, without a Python traceback.
Parsing and verification go through `pypto_dialect.checked`, which reports
xDSL's crashes on malformed input as diagnostics; PyPTO input (`-f pypto`,
or a `.py` file) goes through `parse_pypto`, located at its Python lines.
Any other exception is an internal error (exit code 70, see
`report_internal_error`).
"""

from __future__ import annotations

import argparse
import dataclasses
import shutil
import sys
import warnings
from collections.abc import Sequence
from io import BytesIO
from typing import IO, TYPE_CHECKING, Any, NoReturn, cast

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.utils.arg_spec import parse_spec
from xdsl.utils.exceptions import ArgSpecParseError, DiagnosticException, ParseError
from xdsl.xdsl_opt_main import xDSLOptMain

from pypto_dialect.source_text import (
    UnreadableInput,
    decode_source,
    input_format,
    located_error,
    read_input,
)
from pypto_dialect.tools.diagnostics import (
    PrintAndExit,
    ToolFailure,
    add_traceback_flag,
    diagnosed_ops,
    diagnostic_text,
    report_internal_error,
    version_text,
)
from pypto_dialect.tools.inputs import source_name
from pypto_dialect.tools.pipelines import (
    PipelineError,
    help_pass,
    list_passes,
    parse_pipeline,
)
from pypto_dialect.tools.universe import FRONTEND_NAMES

if TYPE_CHECKING:
    from xdsl.ir import Operation

    from pypto_dialect.checked import OpSpans


class PyPTOOptMain(xDSLOptMain):
    """`xdsl-opt` whose diagnostics are `error:` lines instead of tracebacks."""

    op_spans: OpSpans
    version_format = version_text("pypto-opt", "{xdsl_version}")

    def __init__(
        self,
        description: str = "pypto-dialect modular optimizer driver",
        args: Sequence[str] | None = None,
    ):
        self.op_spans = {}
        super().__init__(description, args)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        # xDSL's help of `-p` names every pass, most of `--help`: --list-passes
        # lists them. xDSL adds its options through a stand-in that shortens it.
        super().register_all_arguments(
            cast(argparse.ArgumentParser, _ShortPassesHelp(arg_parser))
        )
        arg_parser.add_argument(
            "--list-passes",
            action=PrintAndExit,
            nargs=0,
            text=self._list_passes,
            help="list the passes, one line each, and exit",
        )
        arg_parser.add_argument(
            "--help-pass",
            metavar="NAME",
            action=PrintAndExit,
            text=self._help_pass,
            help="describe the pass NAME and each of its options, and exit",
        )
        add_traceback_flag(arg_parser)

    def _list_passes(self, _: object) -> str:
        return list_passes(self.available_passes)

    def _help_pass(self, name: str) -> str:
        try:
            return help_pass(name, self.available_passes)
        except PipelineError as error:
            raise ToolFailure(f"pypto-opt: error: --help-pass: {error}") from None

    def setup_pipeline(self) -> None:
        """xDSL's pipeline, verifying with `verify_module` after parsing and each pass."""
        from xdsl.transforms.mlir_opt import MLIROptPass

        from pypto_dialect.checked import verify_module

        try:
            # Ours answers a mistake; then xDSL's builds the same passes into
            # the pipeline with its callback (--time-passes and the like).
            parse_pipeline(self.args.passes, self.available_passes)
        except PipelineError as error:
            _fail(f"pypto-opt: error: --passes: {error}")
        super().setup_pipeline()
        for pass_ in self.pipeline.passes:
            # A missing tool is the environment's fault, not a bug: say so first.
            if isinstance(pass_, MLIROptPass) and not shutil.which(pass_.executable):
                _fail(
                    f"pypto-opt: error: the pass {pass_.name} runs '{pass_.executable}', "
                    "which is not on PATH (set XDSL_MLIR_OPT to its path)"
                )
        xdsl_callback = self.pipeline.callback
        assert xdsl_callback is not None
        verify = not self.args.disable_verify
        # xDSL's callback still times and prints the passes; its own
        # `module.verify()`, which crashes on some malformed IR, is turned off.
        self.args.disable_verify = True

        def callback(
            previous: ModulePass | None, module: ModuleOp, next_: ModulePass | None
        ) -> None:
            if verify:
                verify_module(module)
            xdsl_callback(previous, module, next_)

        self.pipeline = dataclasses.replace(self.pipeline, callback=callback)

    def get_input_stream(self) -> tuple[IO[bytes], str]:
        """The input read as `pypto-run` and `pypto-report` read it (`-`: stdin)."""
        path = self.args.input_file or "-"
        extension = input_format(path, self.available_frontends)
        return BytesIO(read_input(path)), extension

    def get_input_name(self) -> str:
        return source_name(self.args.input_file or "-")

    def parse_chunk(
        self, chunk: IO[bytes], file_extension: str, start_offset: int = 0
    ) -> ModuleOp | None:
        frontend = parse_spec(self.args.frontend).name if self.args.frontend else None
        if (frontend or file_extension) in FRONTEND_NAMES:
            from pypto_dialect.dsl import parse_pypto

            return parse_pypto(
                self.ctx,
                decode_source(chunk.read(), start_offset),
                self.get_input_name(),
                op_spans=self.op_spans,
                line_offset=start_offset,
            )
        if frontend or file_extension != "mlir":
            return super().parse_chunk(chunk, file_extension, start_offset)
        from pypto_dialect.checked import CheckedParser

        parser = CheckedParser(
            self.ctx,
            decode_source(chunk.read(), start_offset),
            self.get_input_name(),
            self.op_spans,
            start_offset,
        )
        return parser.parse_module(not self.args.no_implicit_module)

    def run(self) -> None:
        try:
            super().run()
        except ParseError as error:
            _fail(located_error(error.span, error.msg))
        except DiagnosticException as error:
            self._report_diagnostic(error, diagnosed_ops(error))
        except UnreadableInput as error:
            _fail(f"pypto-opt: error: cannot read {self.get_input_name()}: {error}")
        except OSError as error:
            _fail(f"pypto-opt: error: {error}")
        except Exception as error:
            sys.exit(report_internal_error("pypto-opt", error, self.args.traceback))

    def _report_diagnostic(
        self, error: DiagnosticException, diagnosed: list[Operation]
    ) -> NoReturn:
        notes: list[str] = getattr(error, "__notes__", [])
        _fail(
            diagnostic_text(
                str(error), diagnosed, self.op_spans, self.get_input_name(), notes=notes
            )
        )


class _ShortPassesHelp:
    """An argument parser that adds `-p` with a short help, and is `parser` otherwise."""

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self.parser = parser

    def add_argument(self, *names: str, **options: Any) -> argparse.Action:
        if "--passes" in names:
            options["help"] = (
                "the passes to run, comma-separated, each NAME or "
                "NAME{OPTION=VALUE ...} (see --list-passes and --help-pass)"
            )
        return self.parser.add_argument(*names, **options)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.parser, name)


def _fail(*lines: str) -> NoReturn:
    for line in lines:
        print(line, file=sys.stderr)
    sys.exit(1)


def main(args: Sequence[str] | None = None) -> None:
    """Entry point of the `pypto-opt` console script."""
    warnings.filterwarnings("default", category=DeprecationWarning)
    try:
        driver = PyPTOOptMain(args=args)
    except ArgSpecParseError as error:
        _fail(f"pypto-opt: error: {error}")
    except Exception as error:  # before --traceback is known
        sys.exit(report_internal_error("pypto-opt", error, False))
    driver.run()


if __name__ == "__main__":
    main()
