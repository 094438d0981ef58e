"""
Benchmarks of the passes, one command line: `python -m bench NAME` from the
repository root (`python -m bench` lists the names; see `docs/performance.md`).
"""

import argparse


def command_line(name: str, description: str | None) -> argparse.ArgumentParser:
    """The argument parser of `python -m bench NAME`."""
    return argparse.ArgumentParser(
        prog=f"python -m bench {name}", description=description
    )
