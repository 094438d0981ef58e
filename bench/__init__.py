"""
Benchmarks of the passes, one command line: `python -m bench NAME` from the
repository root (`python -m bench` lists the names; see `docs/performance.md`).
"""

import argparse
import os
from pathlib import Path

PYPTO_PYTHON = "PYPTO_PYTHON"
"""The environment variable that names an interpreter that can import pypto."""


def command_line(name: str, description: str | None) -> argparse.ArgumentParser:
    """The argument parser of `python -m bench NAME`."""
    return argparse.ArgumentParser(
        prog=f"python -m bench {name}", description=description
    )


def add_pypto_python(parser: argparse.ArgumentParser) -> None:
    """`--pypto-python PATH`, by default `$PYPTO_PYTHON` (no default without it)."""
    parser.add_argument(
        "--pypto-python",
        type=Path,
        default=os.environ.get(PYPTO_PYTHON),
        help=f"an interpreter that can import pypto (default: ${PYPTO_PYTHON})",
    )
