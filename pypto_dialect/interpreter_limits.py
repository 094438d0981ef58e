"""
The interpreter's default limits of one run, in a module that imports
nothing, so that `pypto-run --help` shows them without loading the
interpreter (numpy, xDSL's interpreters).
"""

DEFAULT_MAX_ITERATIONS = 1_000_000
"""
The default budget of one run: loop iterations plus branches taken. An
endless `scf.while` spends it in about 15 s of CPU (`pypto-run` on
`test/filecheck/tools/bad-input/endless_while.mlir`, `--entry endless`).
"""

DEFAULT_MAX_ELEMENTS = 1 << 26
"""
The most elements one tensor or tile of a run may hold (64 Mi, 512 MiB as
float64), so that no type asks the interpreter for more memory than a
machine has.
"""
