"""
The PyPTO frontend: Python text (`@pl.program` classes) to a module of
`func.func` kernels. The text is parsed with `ast`, never imported or run;
every problem is a `ParseError` at its Python source position.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.utils.exceptions import ParseError

from pypto_dialect.checked import OpSpans
from pypto_dialect.dsl.annotations import dotted, pl_path
from pypto_dialect.dsl.functions import FunctionBuilder
from pypto_dialect.dsl.source import SourceFile
from pypto_dialect.dsl.tables import LANGUAGE_MODULE, MODULE_ALIAS


def parse_pypto(
    ctx: Context,
    text: str,
    filename: str = "<unknown>",
    *,
    op_spans: OpSpans | None = None,
    line_offset: int = 0,
) -> ModuleOp:
    """
    The module of a PyPTO program: one `builtin.module` per `@pl.program`
    class, named after it (the class's module itself when there is one
    class), one `func.func` per method, verified. Problems raise
    `ParseError` at their Python source position; `op_spans` receives where
    each op comes from. `ctx` is the context the module is for; the ops are
    built directly, so it is not consulted.
    """
    del ctx
    source = SourceFile(text, filename, line_offset)
    reader = _ProgramReader(source)
    try:
        module = reader.program(_parse_python(source))
    except RecursionError:
        raise ParseError(
            source.char_span(1, 1), "the program is nested too deeply to read"
        ) from None
    if op_spans is not None:
        op_spans.update((op, source.span(node)) for op, node in reader.nodes.items())
    return module


def _parse_python(source: SourceFile) -> ast.Module:
    """`ast.parse`, with Python's syntax errors as located `ParseError`s."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. `1if`: Python's own lint
            return ast.parse(source.text, source.name)
    except SyntaxError as error:
        span = (
            source.char_span(error.lineno or 1, error.offset or 1, error.end_offset)
            if error.end_lineno in (None, error.lineno)
            else source.char_span(error.lineno or 1, error.offset or 1)
        )
        raise ParseError(span, f"Python syntax error: {error.msg}") from None
    except (ValueError, RecursionError, MemoryError) as error:
        message = str(error) or "the program is nested too deeply to parse"
        raise ParseError(source.char_span(1, 1), f"cannot parse: {message}") from None


@dataclass
class _ProgramReader:
    """Reads the classes of a program, and remembers the source of every op."""

    source: SourceFile
    alias: str = MODULE_ALIAS
    nodes: dict[Operation, ast.AST] = field(default_factory=dict[Operation, ast.AST])

    def program(self, tree: ast.Module) -> ModuleOp:
        classes: list[ModuleOp] = []
        names: set[str] = set()
        for statement in tree.body:
            if isinstance(statement, ast.Import | ast.ImportFrom):
                self._import(statement)
            elif isinstance(statement, ast.ClassDef):
                classes.append(self._class(statement, names))
            elif not _is_docstring(statement):
                self.source.fail(
                    statement,
                    f"unsupported top-level statement: a PyPTO program holds "
                    f"'import {LANGUAGE_MODULE} as {MODULE_ALIAS}' and "
                    f"@{MODULE_ALIAS}.program classes",
                )
        if not classes:
            raise ParseError(
                self.source.char_span(1, 1),
                f"no @{self.alias}.program class: a PyPTO program holds "
                f"'import {LANGUAGE_MODULE} as {MODULE_ALIAS}' and "
                f"@{MODULE_ALIAS}.program classes",
            )
        if len(classes) == 1:
            return classes[0]
        return ModuleOp(classes)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        """`import pypto.language as pl` (or `from pypto import language as pl`)."""
        if isinstance(node, ast.Import):
            names = [(alias.name, alias.asname) for alias in node.names]
        else:
            module = "." * node.level + (node.module or "")
            names = [(f"{module}.{alias.name}", alias.asname) for alias in node.names]
        for name, asname in names:
            if name != LANGUAGE_MODULE or asname is None:
                self.source.fail(
                    node,
                    f"unsupported import: only 'import {LANGUAGE_MODULE} as "
                    f"{MODULE_ALIAS}'",
                )
            self.alias = asname

    def _class(self, node: ast.ClassDef, previous: set[str]) -> ModuleOp:
        """The module of a class; `previous` holds the names of those before it."""
        self._check_decorators(node, "program")
        if node.name in previous:
            self.source.fail(node, f"the program class '{node.name}' is defined twice")
        previous.add(node.name)
        if node.bases or node.keywords:
            self.source.fail(node, "a PyPTO program class takes no base classes")
        functions: list[func.FuncOp] = []
        names: set[str] = set()
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef):
                functions.append(self._function(statement, names))
            elif not (_is_docstring(statement) or isinstance(statement, ast.Pass)):
                self.source.fail(
                    statement,
                    f"a PyPTO program class holds @{self.alias}.function methods only",
                )
        module = ModuleOp(functions, sym_name=StringAttr(node.name))
        module.location = self.source.location(node)
        self.nodes[module] = node
        return module

    def _function(self, node: ast.FunctionDef, previous: set[str]) -> func.FuncOp:
        """The function of a method; `previous` holds the names of those before it."""
        self._check_decorators(node, "function")
        if node.name in previous:
            self.source.fail(node, f"the method '{node.name}' is defined twice")
        previous.add(node.name)
        builder = FunctionBuilder(self.source, self.alias)
        op = builder.build(node)
        self.nodes.update(builder.nodes)
        return op

    def _check_decorators(
        self, node: ast.ClassDef | ast.FunctionDef, name: str
    ) -> None:
        """Exactly `@pl.<name>` or `@pl.<name>(...)` (whose keywords are ignored)."""
        for decorator in node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            if pl_path(target, self.alias) != (name,):
                self.source.fail(
                    decorator, f"unsupported decorator '@{dotted(target)}'"
                )
        if len(node.decorator_list) != 1:
            what = "program class" if name == "program" else "method"
            self.source.fail(
                node, f"a PyPTO {what} must be decorated with @{self.alias}.{name}"
            )


def _is_docstring(node: ast.stmt) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )
