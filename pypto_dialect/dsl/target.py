"""
The PyPTO target: a module printed as PyPTO text, one `@pl.program` class
per module and one `@pl.function` method per kernel.

Every op with a result becomes an annotated assignment (`x: T = ...`; a
binding of its tile puts the allocation in `T`, as PyPTO's printer does),
`arith.constant` a literal at its uses, and each tensor parameter a chain of
SSA versions: a store prints `out_1: T = pl.tile.store(t, [0], out)`, and a
loop or `if` that writes a tensor carries it (`init_values`, `pl.yield_`), as
PyPTO prints it. What has no PyPTO form is an `ExportError` at the op.
"""

from __future__ import annotations

from typing import IO

from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp

from pypto_dialect.collector import collector_paused
from pypto_dialect.dsl.errors import fail
from pypto_dialect.dsl.function_printer import INDENT, FunctionPrinter
from pypto_dialect.dsl.naming import Names
from pypto_dialect.dsl.statement_printers import PRINTERS
from pypto_dialect.dsl.tables import (
    LANGUAGE_MODULE,
    MODULE_ALIAS,
)

PL = MODULE_ALIAS
DEFAULT_CLASS = "Program"
"""The class name of a module without `sym_name`."""


def print_pypto(module: ModuleOp, stream: IO[str]) -> None:
    """Print `module` as a PyPTO program: one class per module (nested or this one)."""
    with collector_paused():  # as the passes do: it makes objects per op, frees none
        _print_pypto(module, stream)


def _print_pypto(module: ModuleOp, stream: IO[str]) -> None:
    names = Names()
    chunks: list[str] = []
    for class_module, functions in _classes(module):
        name = names.symbol(_symbol(class_module), DEFAULT_CLASS)
        methods = [FunctionPrinter(function, PRINTERS).text() for function in functions]
        body = "\n\n".join(methods) if methods else f"{INDENT}pass"
        chunks.append(f"# pypto.program: {name}\n@{PL}.program\nclass {name}:\n{body}")
    # PyPTO's header comment comes first, then the import.
    first, _, rest = chunks[0].partition("\n")
    chunks[0] = f"{first}\nimport {LANGUAGE_MODULE} as {PL}\n\n\n{rest}"
    stream.write("\n\n\n".join(chunks) + "\n")


def _symbol(module: ModuleOp) -> str | None:
    return None if module.sym_name is None else module.sym_name.data


def _classes(module: ModuleOp) -> list[tuple[ModuleOp, list[func.FuncOp]]]:
    """The modules to print as classes, with their functions."""
    ops = list(module.ops)
    modules = [op for op in ops if isinstance(op, ModuleOp)]
    if modules and len(modules) == len(ops):
        return [(nested, _functions(nested)) for nested in modules]
    return [(module, _functions(module))]


def _functions(module: ModuleOp) -> list[func.FuncOp]:
    functions: list[func.FuncOp] = []
    for op in module.ops:
        if not isinstance(op, func.FuncOp):
            return fail(op, "has no PyPTO form (a program holds functions only)")
        if op.is_declaration:
            fail(op, "a function declaration has no PyPTO form")
        functions.append(op)
    return functions
