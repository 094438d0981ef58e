"""
The interpreter's default limits of one run, in a module that imports
nothing, so that `pypto-run --help` shows them without loading the
interpreter (numpy, xDSL's interpreters).
"""

DEFAULT_MAX_ITERATIONS = 10_000_000
"""The default budget of one run: loop iterations plus branches taken."""

DEFAULT_MAX_ELEMENTS = 1 << 26
"""
The most elements one tensor or tile of a run may hold (64 Mi, 512 MiB as
float64), so that no type asks the interpreter for more memory than a
machine has.
"""
