"""
Executable semantics of pypto kernels, on numpy.

`PyPTOFunctions` implements every `pypto` op for xDSL's interpreter. With
xDSL's `func` and `builtin` implementations, and `arith` / `scf` ones extended
with the scalar ops xDSL lacks and with checked loop steps, it runs whole
kernels. `run_kernel` is the entry point of `pypto-run` and of the
differential tests, `random_inputs` makes deterministic inputs and
`compare_runs` checks that two runs are bit-identical. `run_group` runs a
cube kernel and its vector kernel together (`cores.py`). `docs/interpreter.md`
states the semantics of every op as executed and lists the modules.
"""

from pypto_dialect.interpreter.arith import PyPTOArithFunctions
from pypto_dialect.interpreter.compare import (
    bit_identical,
    compare_runs,
    describe_difference,
)
from pypto_dialect.interpreter.cores import GroupRun, find_group, run_group
from pypto_dialect.interpreter.elements import (
    Array,
    convert,
    numpy_dtype,
    shaped_type_name,
)
from pypto_dialect.interpreter.kernel import (
    RANDOM_INDEX_RANGE,
    RANDOM_INT_RANGE,
    KernelArg,
    KernelRun,
    check_array_sizes,
    find_kernel,
    kernel_interpreter,
    kernel_names,
    parameter_names,
    random_inputs,
    run_kernel,
)
from pypto_dialect.interpreter.pypto import PyPTOFunctions
from pypto_dialect.interpreter.scf import PyPTOCfFunctions, PyPTOScfFunctions
from pypto_dialect.interpreter.values import integer_scalar
from pypto_dialect.interpreter_limits import (
    DEFAULT_MAX_ELEMENTS,
    DEFAULT_MAX_ITERATIONS,
)

__all__ = [
    "DEFAULT_MAX_ELEMENTS",
    "DEFAULT_MAX_ITERATIONS",
    "RANDOM_INDEX_RANGE",
    "RANDOM_INT_RANGE",
    "Array",
    "GroupRun",
    "KernelArg",
    "KernelRun",
    "PyPTOArithFunctions",
    "PyPTOCfFunctions",
    "PyPTOFunctions",
    "PyPTOScfFunctions",
    "bit_identical",
    "check_array_sizes",
    "compare_runs",
    "convert",
    "describe_difference",
    "find_group",
    "find_kernel",
    "integer_scalar",
    "kernel_interpreter",
    "kernel_names",
    "numpy_dtype",
    "parameter_names",
    "random_inputs",
    "run_group",
    "run_kernel",
    "shaped_type_name",
]
