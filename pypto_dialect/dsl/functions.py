"""
PyPTO methods to `func.func`: parameters, results, and the statements
(assignments, calls, `for` and `if` from `ControlFlowBuilder`).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from xdsl.dialects import func
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.dsl.annotations import (
    Annotation,
    dotted,
    pl_path,
    resolve,
)
from pypto_dialect.dsl.calls import build_tile_call
from pypto_dialect.dsl.constructs import construct_name
from pypto_dialect.dsl.control import ControlFlowBuilder, code, hint
from pypto_dialect.dsl.tables import ALLOCATION_CALL, TileCall
from pypto_dialect.walks import walk_ops


class FunctionBuilder(ControlFlowBuilder):
    """Builds one method into a `func.func`."""

    def build(self, node: ast.FunctionDef) -> func.FuncOp:
        parameters = self._parameters(node)
        self.block = Block(arg_types=[typ for _, typ in parameters])
        for (name, _), arg in zip(parameters, self.block.args, strict=True):
            hint(arg, name.arg)
            self.scope.bindings[name.arg] = arg
        declared = self._declared_results(node)
        body = code(node.body)
        last = body[-1] if body else None
        for statement in body[:-1] if isinstance(last, ast.Return) else body:
            self.statement(statement)
        results = self._return(last if isinstance(last, ast.Return) else node, declared)
        function_type = ([typ for _, typ in parameters], [r.type for r in results])
        op = func.FuncOp(node.name, function_type, Region(self.block))
        op.location = self.source.location(node)
        self.nodes[op] = node
        self.verify(op)
        return op

    def verify(self, root: Operation) -> None:
        """Verify every op, reporting a failure at the source of the op."""
        for op in walk_ops(root):
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException as error:
                node = self.nodes.get(op, self.nodes[root])
                self.fail(node, f"{_what(node)}{error}")

    def _parameters(self, node: ast.FunctionDef) -> list[tuple[ast.arg, Attribute]]:
        arguments = node.args
        for unsupported in (
            *arguments.posonlyargs,
            *arguments.kwonlyargs,
            arguments.vararg,
            arguments.kwarg,
            *arguments.defaults,
        ):
            if unsupported is not None:
                self.fail(unsupported, "only plain parameters are supported")
        parameters = list(arguments.args)
        if parameters and parameters[0].arg == "self":
            parameters = parameters[1:]
        typed: list[tuple[ast.arg, Attribute]] = []
        for parameter in parameters:
            if parameter.arg == self.alias:
                self.fail(parameter, f"a parameter cannot be named '{self.alias}'")
            if parameter.annotation is None:
                self.fail(
                    parameter, f"parameter '{parameter.arg}' needs a type annotation"
                )
            annotation = self.reader.read(parameter.annotation, parameter=True)
            typed.append((parameter, resolve(annotation)))
        return typed

    def _declared_results(self, node: ast.FunctionDef) -> list[Annotation] | None:
        returns = node.returns
        if returns is None or (
            isinstance(returns, ast.Constant) and returns.value is None
        ):
            return None if returns is None else []
        if isinstance(returns, ast.Subscript) and dotted(returns.value) in (
            "tuple",
            "Tuple",
        ):
            items = (
                returns.slice.elts
                if isinstance(returns.slice, ast.Tuple)
                else [returns.slice]
            )
            return [self.reader.read(item) for item in items]
        return [self.reader.read(returns)]

    def _return(
        self, node: ast.stmt, declared: list[Annotation] | None
    ) -> list[SSAValue]:
        """`return ...` (or the end of the body): the function's results."""
        value = node.value if isinstance(node, ast.Return) else None
        nodes = (
            value.elts
            if isinstance(value, ast.Tuple)
            else []
            if value is None
            else [value]
        )
        if declared is not None and len(declared) != len(nodes):
            self.fail(
                node, f"the function returns {len(declared)} values, got {len(nodes)}"
            )
        results: list[SSAValue] = []
        for index, result in enumerate(nodes):
            annotation = None if declared is None else declared[index]
            results.append(self._checked(result, annotation, result))
        self.emit(func.ReturnOp(*results), node)
        return results

    # -- statements ---------------------------------------------------------- #

    def tile_call(
        self, call: TileCall, node: ast.Call, annotation: Annotation | None
    ) -> SSAValue | None:
        return build_tile_call(self, call, node, annotation)

    def statement(self, node: ast.stmt) -> None:
        handler = _STATEMENTS.get(type(node))
        if handler is None:
            if isinstance(node, ast.Return):
                self.fail(node, "return must be the last statement of the function")
            self.fail(node, f"unsupported PyPTO construct '{construct_name(node)}'")
        handler(self, node)

    def assign(self, node: ast.Assign) -> None:
        if len(node.targets) != 1:
            self.fail(node, "chained assignment is not supported")
        self._assign(self._target(node.targets[0]), node.value, None, node.value)

    def annotated_assign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            self.fail(node, "a declaration needs a value")
        target = self._target(node.target)
        annotation = self.reader.read(node.annotation)
        self._assign(target, node.value, annotation, node.annotation)

    def _assign(
        self,
        target: ast.Name,
        node: ast.expr,
        annotation: Annotation | None,
        at: ast.AST,
    ) -> None:
        """`target = node`: a value, or the tile of a `pl.tile.create(...)`."""
        if isinstance(node, ast.Call) and pl_path(node.func, self.alias) == (
            "tile",
            ALLOCATION_CALL,
        ):
            allocation = self.create(node)
            self.check_annotation(annotation, allocation.typ, at)
            self.bind(target, allocation)
            return
        self.bind(target, self._checked(node, annotation, at))

    def augmented_assign(self, node: ast.AugAssign) -> None:
        target = self._target(node.target)
        current = ast.copy_location(ast.Name(target.id, ast.Load()), target)
        expression = ast.copy_location(ast.BinOp(current, node.op, node.value), node)
        self.bind(target, self.binary(expression))

    def expression(self, node: ast.Expr) -> None:
        value = node.value
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return  # a docstring or a comment string
        if not isinstance(value, ast.Call):
            self.fail(node, "an expression statement must be a call")
        result = self.call(value)
        # `pl.tile.write(t, ...)` makes `t` denote the new tile.
        if pl_path(value.func, self.alias) == ("tile", "write") and isinstance(
            value.args[0], ast.Name
        ):
            assert result is not None
            self.bind(value.args[0], result)

    def _target(self, node: ast.expr) -> ast.Name:
        if isinstance(node, ast.Tuple):
            self.fail(
                node, f"tuple assignment is only supported for {self.alias}.yield_"
            )
        if not isinstance(node, ast.Name):
            self.fail(node, f"cannot assign to a {construct_name(node)}")
        return node

    def _checked(
        self, node: ast.expr, annotation: Annotation | None, at: ast.AST
    ) -> SSAValue:
        """The value of `node`, which `annotation` types (and must match)."""
        expected = None if annotation is None else resolve(annotation)
        if isinstance(node, ast.Call) and self._literal(node) is None:
            value = self.call(node, annotation)
            if value is None:
                self.fail(node, f"{dotted(node.func)}(...) has no result")
        elif isinstance(node, ast.BinOp):
            value = self.binary(node, expected)
        else:
            value = self.value(node, expected)
        self.check_annotation(annotation, value.type, at)
        return value


def _what(node: ast.AST) -> str:
    """`pl.tile.matmul: ` for the ops of a call, to prefix verifier messages."""
    if isinstance(node, ast.For):
        node = node.iter
    return f"{dotted(node.func)}: " if isinstance(node, ast.Call) else ""


_STATEMENTS: dict[type[ast.stmt], Callable[[FunctionBuilder, Any], None]] = {
    ast.Assign: FunctionBuilder.assign,
    ast.AnnAssign: FunctionBuilder.annotated_assign,
    ast.AugAssign: FunctionBuilder.augmented_assign,
    ast.Expr: FunctionBuilder.expression,
    ast.For: FunctionBuilder.for_loop,
    ast.If: FunctionBuilder.if_statement,
    ast.Pass: lambda _builder, _node: None,
}
