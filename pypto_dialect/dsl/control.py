"""
Loops and conditionals of PyPTO methods: `pl.range` / `pl.pipeline` loops
with `init_values` and `pl.yield_`, `if` / `elif` / `else` with yields, and
what names denote after them.

Tensors are SSA values in PyPTO and buffers in our IR: every tensor value
resolves to the parameter it versions (`o = pl.tile.store(t, [0], out)` makes
`o` denote `out`), and tensors in `init_values`, `pl.yield_` and results are
dropped; two different tensors meeting at one yield are an error.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, cast

from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType, i1
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from pypto_dialect.dsl.annotations import (
    Annotation,
    annotation_text,
    matches,
    pl_path,
    resolve,
)
from pypto_dialect.dsl.arguments import apply_membership
from pypto_dialect.dsl.expressions import (
    Allocation,
    Binding,
    ExpressionBuilder,
    Hidden,
    Operand,
    Scope,
)
from pypto_dialect.dsl.loop_headers import LoopHeader, counted
from pypto_dialect.pipeline import PipelineOp, YieldOp
from pypto_dialect.types import TensorType


@dataclass(frozen=True)
class _Yield:
    """A trailing `targets = pl.yield_(values)` (targets None for a bare call)."""

    node: ast.stmt
    call: ast.Call
    targets: list[ast.Name] | None
    annotation: Annotation | None = None
    """`r: T = pl.yield_(v)`, as PyPTO prints a yield of one value: `T`."""

    def type_of_first(self) -> Attribute | None:
        """The type the annotation gives the (first) yielded value, if annotated."""
        return None if self.annotation is None else resolve(self.annotation)


@dataclass
class _Branch:
    """A built block: its scope, and the raw operands of its trailing yield."""

    block: Block
    scope: Scope
    yield_: _Yield | None
    operands: list[Operand]


class ControlFlowBuilder(ExpressionBuilder):
    """Loops, conditionals and name binding; the statements are the subclass's."""

    @abstractmethod
    def statement(self, node: ast.stmt) -> None: ...

    def bind(self, target: ast.Name, value: SSAValue | Allocation) -> None:
        name = target.id
        if name in (self.alias, "self"):
            self.fail(target, f"cannot assign to '{name}'")
        if self.scope.carries(name, value):
            self.fail(
                target,
                f"'{name}' is read in the loop body before it is assigned: a value "
                f"that changes from one iteration to the next must be carried with "
                f"init_values and {self.alias}.yield_",
            )
        if isinstance(value, SSAValue):
            hint(value, name)
        self.scope.bindings[name] = value

    def check_annotation(
        self, annotation: Annotation | None, typ: Attribute, at: ast.AST
    ) -> None:
        """An annotation, if any, must match the type of what it names."""
        if annotation is not None and not matches(annotation, typ):
            self.fail(
                at,
                f"the annotation {annotation_text(annotation)} does not match the "
                f"value's type {self.type_name(typ)}",
            )

    # -- loops and conditionals ---------------------------------------------- #

    @contextmanager
    def inside(self, block: Block, scope: Scope) -> Generator[None]:
        outer = self.block, self.scope
        self.block, self.scope = block, scope
        try:
            yield
        finally:
            self.block, self.scope = outer

    def branch(
        self,
        statements: Sequence[ast.stmt],
        block: Block,
        *,
        loop: bool = False,
        names: Sequence[tuple[ast.Name, SSAValue]] = (),
    ) -> _Branch:
        """Build `statements` into `block` with `names` bound, up to a trailing yield."""
        scope = Scope(self.scope, loop=loop)
        with self.inside(block, scope):
            for target, value in names:
                self.bind(target, value)
            body = code(statements)
            trailing = self._yield(body[-1]) if body else None
            for statement in body[:-1] if trailing else body:
                if self._yield(statement) is not None:
                    self.fail(
                        statement,
                        f"{self.alias}.yield_ must be the last statement of a loop body "
                        "or an if branch",
                    )
                self.statement(statement)
            operands: list[Operand] = []
            if trailing is not None:
                arguments = self.arguments(trailing.call)
                arguments.finish()
                operands = [self.operand(node) for node in arguments.positional]
        return _Branch(block, scope, trailing, operands)

    def _yield(self, node: ast.stmt) -> _Yield | None:
        value = (
            node.value
            if isinstance(node, ast.Assign | ast.Expr | ast.AnnAssign)
            else None
        )
        if not (
            isinstance(value, ast.Call)
            and pl_path(value.func, self.alias) == ("yield_",)
        ):
            return None
        if isinstance(node, ast.AnnAssign):
            if not isinstance(node.target, ast.Name):
                self.fail(
                    node.target, f"the targets of {self.alias}.yield_ must be names"
                )
            annotation = self.reader.read(node.annotation)
            return _Yield(node, value, [node.target], annotation)
        if not isinstance(node, ast.Assign):
            return _Yield(node, value, None)
        if len(node.targets) != 1:
            self.fail(node, "chained assignment is not supported")
        target = node.targets[0]
        names = target.elts if isinstance(target, ast.Tuple) else [target]
        for name in names:
            if not isinstance(name, ast.Name):
                self.fail(name, f"the targets of {self.alias}.yield_ must be names")
        return _Yield(node, value, cast(list[ast.Name], names))

    def for_loop(self, node: ast.For) -> None:
        if node.orelse:
            self.fail(node.orelse[0], "for ... else is not supported")
        loop = LoopHeader.read(self, node)
        induction, carried = loop.targets(self)
        body = Block(
            arg_types=[IndexType(), *(v.type for v in loop.inits if not _is_tensor(v))]
        )
        names: list[tuple[ast.Name, SSAValue]] = [(induction, body.args[0])]
        block_args = iter(body.args[1:])
        for target, init in zip(carried, loop.inits, strict=True):
            names.append((target, init if _is_tensor(init) else next(block_args)))
        branch = self.branch(node.body, body, loop=True, names=names)
        yielded = self._loop_yield(node, loop, branch)
        terminator = YieldOp if loop.stages is not None else scf.YieldOp
        with self.inside(body, branch.scope):
            self.emit(
                terminator(*yielded), branch.yield_.node if branch.yield_ else node
            )
        self._close(node, [branch], "the loop body")
        iter_inits = [v for v in loop.inits if not _is_tensor(v)]
        if loop.stages is None:
            op: Operation = scf.ForOp(loop.lb, loop.ub, loop.step, iter_inits, body)
        else:
            op = PipelineOp(
                loop.lb,
                loop.ub,
                loop.step,
                iter_inits,
                body,
                loop.stages,
                policy=loop.policy,
            )
        apply_membership(self.emit(op, node), loop.membership)
        self._bind_results(branch.yield_, loop.inits, iter(op.results))

    def _loop_yield(
        self, node: ast.For, loop: LoopHeader, branch: _Branch
    ) -> list[SSAValue]:
        """The non-tensor values the body yields, checked against `init_values`."""
        count = len(branch.operands)
        if branch.yield_ is None and loop.inits:
            self.fail(
                node,
                f"the loop body must end with {self.alias}.yield_(...) of "
                f"{counted(len(loop.inits), 'value')}, one per init_values",
            )
        if count != len(loop.inits):
            assert branch.yield_ is not None
            self.fail(
                branch.yield_.call,
                f"{self.alias}.yield_ gives {counted(count, 'value')} for "
                f"{counted(len(loop.inits), 'init_value')}",
            )
        yielded: list[SSAValue] = []
        with self.inside(branch.block, branch.scope):
            for index, (operand, init) in enumerate(
                zip(branch.operands, loop.inits, strict=True)
            ):
                assert branch.yield_ is not None
                at = branch.yield_.call.args[index]
                value = self.materialize(operand, init.type)
                if index == 0:
                    self._check_yielded(branch.yield_, value)
                if _is_tensor(init):
                    self._check_buffer(at, value, init)
                    continue
                if value.type != init.type:
                    self.fail(
                        at,
                        f"{self.alias}.yield_ value #{index} is "
                        f"{self.type_name(value.type)}, but init_values #{index} is "
                        f"{self.type_name(init.type)}",
                    )
                yielded.append(value)
        return yielded

    def _check_yielded(self, yield_: _Yield, first: SSAValue) -> None:
        """The annotation of `r: T = pl.yield_(v)` must match `v`."""
        if isinstance(yield_.node, ast.AnnAssign):
            self.check_annotation(yield_.annotation, first.type, yield_.node.annotation)

    def _check_buffer(self, node: ast.AST, value: SSAValue, buffer: SSAValue) -> None:
        """A tensor that meets `buffer` at a yield must be `buffer`."""
        if value is not buffer:
            self.fail(
                node,
                f"cannot resolve the tensor to one buffer: {_name(value)} here, "
                f"{_name(buffer)} on the other side of the {self.alias}.yield_",
            )

    def if_statement(self, node: ast.If) -> None:
        condition = self.value(node.test)
        if condition.type != i1:
            self.fail(
                node.test,
                "the condition must be a comparison or a "
                f"{self.alias}.Scalar[{self.alias}.BOOL], "
                f"got {self.type_name(condition.type)}",
            )
        then = self.branch(node.body, Block())
        otherwise = self._elif_yield(node, then, self.branch(node.orelse, Block()))
        carried, then_values, else_values = self._if_yields(node, then, otherwise)
        for branch, yielded in ((then, then_values), (otherwise, else_values)):
            with self.inside(branch.block, branch.scope):
                at = branch.yield_.node if branch.yield_ else node
                self.emit(scf.YieldOp(*yielded), at)
        self._close(node, [then, otherwise], "an if branch")
        # An else branch with nothing but an empty yield is no else branch.
        has_else = len(otherwise.block.ops) > 1 or bool(else_values)
        op = scf.IfOp(
            condition,
            [value.type for value in then_values],
            Region(then.block),
            Region(otherwise.block) if has_else else Region(),
        )
        self.emit(op, node)
        self._bind_results(then.yield_, carried, iter(op.results))

    def _elif_yield(self, node: ast.If, then: _Branch, otherwise: _Branch) -> _Branch:
        """
        An `elif` whose branches all yield to the then-branch's names: the
        else branch (which is that `if`) yields what it binds to them.
        """
        inner = node.orelse[0] if len(node.orelse) == 1 else None
        if (
            then.yield_ is None
            or otherwise.yield_ is not None
            or not isinstance(inner, ast.If)
        ):
            return otherwise
        operands: list[Operand] = []
        for target in then.yield_.targets or []:
            binding = otherwise.scope.bindings.get(target.id)
            if not isinstance(binding, SSAValue):
                return otherwise  # reported as a missing yield
            operands.append(binding)
        call = ast.copy_location(
            ast.Call(ast.Name("yield_", ast.Load()), [], []), inner
        )
        call.args = [
            ast.copy_location(ast.Name(t.id, ast.Load()), inner)
            for t in then.yield_.targets or []
        ]
        yield_ = _Yield(inner, call, then.yield_.targets)
        return _Branch(otherwise.block, otherwise.scope, yield_, operands)

    def _if_yields(
        self, node: ast.If, then: _Branch, otherwise: _Branch
    ) -> tuple[list[SSAValue], list[SSAValue], list[SSAValue]]:
        """
        Per yielded position, the tensor or the then-value; and the
        non-tensor values each branch yields, with one type per position.
        """
        if then.yield_ is None and otherwise.yield_ is None:
            return [], [], []
        if then.yield_ is None or otherwise.yield_ is None:
            self.fail(
                node,
                f"both branches must end with {self.alias}.yield_ (to the same names)",
            )
        then_names = [target.id for target in then.yield_.targets or []]
        else_names = [target.id for target in otherwise.yield_.targets or []]
        if then_names != else_names or len(then.operands) != len(otherwise.operands):
            self.fail(
                otherwise.yield_.node,
                "the branches must yield the same number of values to the same names "
                f"({', '.join(then_names) or 'none'})",
            )
        carried: list[SSAValue] = []
        yields: tuple[list[SSAValue], list[SSAValue]] = ([], [])
        for index, pair in enumerate(
            zip(then.operands, otherwise.operands, strict=True)
        ):
            at = otherwise.yield_.call.args[index]
            typ = next((op.type for op in pair if isinstance(op, SSAValue)), None)
            if typ is None and index == 0:
                typ = then.yield_.type_of_first() or otherwise.yield_.type_of_first()
            first, second = (
                self._materialize_in(branch, operand, typ)
                for branch, operand in zip((then, otherwise), pair, strict=True)
            )
            if index == 0:
                self._check_yielded(then.yield_, first)
                self._check_yielded(otherwise.yield_, second)
            carried.append(first)
            if _is_tensor(first) or _is_tensor(second):
                self._check_buffer(at, second, first)
                continue
            if first.type != second.type:
                self.fail(
                    at,
                    f"the branches yield {self.type_name(first.type)} and "
                    f"{self.type_name(second.type)} as value #{index}",
                )
            yields[0].append(first)
            yields[1].append(second)
        return carried, *yields

    def _materialize_in(
        self, branch: _Branch, operand: Operand, typ: Attribute | None
    ) -> SSAValue:
        with self.inside(branch.block, branch.scope):
            return self.materialize(operand, typ)

    def _bind_results(
        self, trailing: _Yield | None, carried: Sequence[SSAValue], results: Any
    ) -> None:
        """Bind the yield's targets: tensors to their buffer, the others to the op's results."""
        if trailing is None or trailing.targets is None:
            return
        if len(trailing.targets) != len(carried):
            self.fail(
                trailing.node,
                f"{counted(len(trailing.targets), 'target')} for "
                f"{counted(len(carried), 'yielded value')}",
            )
        for target, value in zip(trailing.targets, carried, strict=True):
            self.bind(target, value if _is_tensor(value) else next(results))

    def _close(self, node: ast.stmt, branches: Sequence[_Branch], what: str) -> None:
        """
        What the names bound in `branches` denote after `node`: a tensor if
        every way through binds the name to the same one (a loop may run zero
        times, a branch may not bind it: then the binding before counts too),
        else nothing usable.
        """
        line = self.source.line(node)
        single = len(branches) == 1
        kind = "loop" if single else "if"
        exit_ = (
            f"carry it out with init_values and {self.alias}.yield_"
            if single
            else f"yield it with {self.alias}.yield_ in both branches"
        )
        for name in dict.fromkeys(n for b in branches for n in b.scope.bindings):
            values = [b.scope.bindings.get(name) for b in branches]
            found = [v for v in values if v is not None]
            tensors = all(_denotes_tensor(v) for v in found)
            # The binding before counts only for tensors (peek walks every scope).
            if tensors and (single or None in values):
                before = self.scope.peek(name)
                if before is not None:
                    found.append(before)
                    tensors = _denotes_tensor(before)
            if tensors and all(v is found[0] for v in found):
                self.scope.bindings[name] = found[0]
            elif tensors:
                self.scope.bindings[name] = Hidden(
                    f"cannot resolve the tensor '{name}' to one buffer: after the "
                    f"{kind} at line {line} it may denote different tensors"
                )
            else:
                self.scope.bindings[name] = Hidden(
                    f"'{name}' is assigned in {what} at line {line} and is not "
                    f"visible after it: {exit_}"
                )


def code(statements: Sequence[ast.stmt]) -> list[ast.stmt]:
    """The statements of a body, without docstrings and `pass`."""
    return [
        statement
        for statement in statements
        if not isinstance(statement, ast.Pass)
        and not (
            isinstance(statement, ast.Expr)
            and isinstance(statement.value, ast.Constant)
            and isinstance(statement.value.value, str)
        )
    ]


def _is_tensor(value: SSAValue) -> bool:
    return isinstance(value.type, TensorType)


def _denotes_tensor(binding: Binding) -> bool:
    """Whether a name's binding is a tensor (plain classes first: `SSAValue`'s check is slow)."""
    return not isinstance(binding, Hidden | Allocation) and _is_tensor(binding)


def _name(value: SSAValue) -> str:
    return "a tensor" if value.name_hint is None else f"'{value.name_hint}'"


def hint(value: SSAValue, name: str) -> None:
    """Name `value` after `name` unless it has a name already (or `name` is not valid in xDSL)."""
    if value.name_hint is None and SSAValue.is_valid_name(name):
        value.name_hint = name
