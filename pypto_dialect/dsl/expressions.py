"""
PyPTO expressions to IR: literals, names, scalar arithmetic and comparisons
(`arith`), and the dispatch of `pl.*` calls. `ExpressionBuilder` holds what
every statement needs: the current block, the names in scope, and where each
op came from.
"""

from __future__ import annotations

import ast
import math
from abc import abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, NoReturn, TypeVar, cast

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    i1,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue

from pypto_dialect.dsl.annotations import (
    Annotation,
    AnnotationReader,
    annotation_text,
    dotted,
    pl_path,
)
from pypto_dialect.dsl.arguments import CallArguments, apply_membership
from pypto_dialect.dsl.constructs import construct_name
from pypto_dialect.dsl.literals import literal_misfit
from pypto_dialect.dsl.source import SourceFile
from pypto_dialect.dsl.tables import (
    ALLOCATION_CALL,
    FLOAT_OPERATORS,
    FLOAT_PREDICATES,
    INTEGER_OPERATORS,
    INTEGER_PREDICATES,
    MIN_MAX,
    OPERATOR_TEXT,
    SCALAR_DTYPES,
    TILE_CALLS,
    TYPED_CONSTANT,
    LiteralValue,
    TileCall,
    default_literal_type,
    is_float_type,
    is_integer_type,
)
from pypto_dialect.numbers import integer_text
from pypto_dialect.types import MemorySpace, TensorType, TileType
from pypto_dialect.xdsl_internals import create_op

OpT = TypeVar("OpT", bound=Operation)


@dataclass(frozen=True)
class Literal:
    """A number of the source whose type its use decides."""

    value: LiteralValue
    node: ast.expr


Operand = SSAValue | Literal


@dataclass(frozen=True)
class Hidden:
    """A name that cannot be used where it is: the reason says why."""

    reason: str


@dataclass(frozen=True)
class Allocation:
    """
    `tmp = pl.tile.create(...)`: a tile without a value, usable only as the
    scratch tile of a row reduction (which then carries none: the target
    gives PyPTO one again).
    """

    typ: TileType
    node: ast.Call


Binding = SSAValue | Hidden | Allocation


@dataclass
class Scope:
    """
    The names of one block: a function body, a loop body (`loop`) or an if
    branch. `read_outer` are the names of enclosing scopes read here before
    being rebound here: rebinding one of those in a loop body would carry a
    value to the next iteration, which needs `init_values`.
    """

    parent: Scope | None = None
    loop: bool = False
    bindings: dict[str, Binding] = field(default_factory=dict[str, Binding])
    read_outer: set[str] = field(default_factory=set[str])

    def lookup(self, name: str) -> Binding | None:
        scope: Scope | None = self
        passed: list[Scope] = []
        while scope is not None:
            if name in scope.bindings:
                for inner in passed:
                    inner.read_outer.add(name)
                return scope.bindings[name]
            passed.append(scope)
            scope = scope.parent
        return None

    def peek(self, name: str) -> Binding | None:
        """What `name` denotes here, without counting it as read."""
        scope: Scope | None = self
        while scope is not None and name not in scope.bindings:
            scope = scope.parent
        return None if scope is None else scope.bindings[name]

    def carries(self, name: str, value: Binding) -> bool:
        """Whether binding `value` to `name` here changes a value a loop body read."""
        scope: Scope | None = self
        while scope is not None and name not in scope.bindings:
            if scope.loop and name in scope.read_outer:
                return self.peek(name) is not value
            scope = scope.parent
        return False


class ExpressionBuilder:
    """Builds the ops of expressions into `block`, with `scope` for the names."""

    def __init__(self, source: SourceFile, alias: str):
        self.source = source
        self.reader = AnnotationReader(source, alias)
        self.alias = alias
        self.scope = Scope()
        self.block = Block()
        self.nodes: dict[Operation, ast.AST] = {}
        """Where each op was built from: its location and verifier errors."""

    def fail(self, node: ast.AST, message: str) -> NoReturn:
        self.source.fail(node, message)

    def emit(self, op: OpT, node: ast.AST) -> OpT:
        """Append `op` to the current block, located at `node`."""
        op.location = self.source.location(node)
        return self.append(op, node)

    def append(self, op: OpT, node: ast.AST) -> OpT:
        """Append `op`, already located, to the current block: it comes from `node`."""
        self.block.add_op(op)
        self.nodes[op] = node
        return op

    def make(
        self,
        cls: type[OpT],
        node: ast.AST,
        operands: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        properties: dict[str, Attribute] | None = None,
    ) -> OpT:
        """
        `emit` of `cls.create(...)`, through the door's fast path: what the
        class's constructor builds from the same values, without
        re-validating them (the function is verified once built).
        """
        location = self.source.location(node)
        op = create_op(cls, operands, result_types, properties or {}, location)
        return self.append(op, node)

    def arguments(self, node: ast.Call) -> CallArguments:
        return CallArguments.of(self.source, node, dotted(node.func))

    def type_name(self, typ: Attribute) -> str:
        return annotation_text(typ)

    # -- values -------------------------------------------------------------- #

    def operand(self, node: ast.expr) -> Operand:
        """`node` as a value, or as a literal whose type is not decided yet."""
        literal = self._literal(node)
        if literal is not None:
            return Literal(literal, node)
        if isinstance(node, ast.Name):
            return self.name(node)
        handler = _EXPRESSIONS.get(type(node))
        if handler is None:
            self.fail(node, f"unsupported PyPTO construct '{construct_name(node)}'")
        return handler(self, node)

    def value(self, node: ast.expr, expected: Attribute | None = None) -> SSAValue:
        """`node` as an SSA value; a literal gets the type `expected` (or its default)."""
        return self.materialize(self.operand(node), expected)

    def materialize(self, operand: Operand, typ: Attribute | None = None) -> SSAValue:
        if isinstance(operand, SSAValue):
            return operand
        return self.constant(operand, typ or default_literal_type(operand.value))

    def constant(self, literal: Literal, typ: Attribute) -> SSAValue:
        """`arith.constant` of `literal` as a `typ`."""
        value, node = literal.value, literal.node
        attr: Attribute
        if is_float_type(typ) and not isinstance(value, bool):
            try:
                number = float(value)
            except OverflowError:
                self.fail(
                    node,
                    f"the literal {_shown(value)} does not fit in "
                    f"{self.type_name(typ)} (too large for a float)",
                )
            attr = _float_attr(number, math.copysign(1.0, number), typ)
            if math.isfinite(number) and not math.isfinite(attr.value.data):
                # The attribute holds the value rounded to its type.
                self.fail(
                    node,
                    f"the literal {_shown(value)} does not fit in "
                    f"{self.type_name(typ)} (it rounds to an infinity)",
                )
        elif typ == i1 and isinstance(value, bool):
            attr = _integer_attr(int(value), i1)
        elif is_integer_type(typ) and typ != i1 and type(value) is int:
            misfit = literal_misfit(typ, value)
            if misfit is not None:
                self.fail(node, f"the literal {_shown(value)} {misfit}")
            attr = _integer_attr(value, typ)
        else:
            what = self.type_name(typ)
            self.fail(node, f"the literal {_shown(value)} cannot be a {what}")
        op = self.make(arith.ConstantOp, node, (), (typ,), {"value": attr})
        return op.result

    def name(self, node: ast.Name) -> SSAValue:
        binding = self.scope.lookup(node.id)
        if isinstance(binding, Hidden):
            self.fail(node, binding.reason)
        if isinstance(binding, Allocation):
            self.fail(
                node,
                f"'{node.id}' is a {self.alias}.tile.create(...) tile, which has no "
                f"value: it can only be the scratch tile of {self.alias}.tile.row_sum "
                "or row_max",
            )
        if binding is None:
            self.fail(node, f"unknown name '{node.id}'")
        return binding

    def create(self, node: ast.Call) -> Allocation:
        """
        `pl.tile.create([shape], dtype=DT, target_memory=X)`: a tile without a
        value (its membership goes with it: the target gives the scratch tile
        it prints back the row reduction's).
        """
        arguments = self.arguments(node)
        arguments.membership()
        arguments.expect(1, 1)
        shape = self.reader.shape(arguments.positional[0], "shape")
        element_type = self.reader.dtype(arguments.required_keyword("dtype"))
        space_node = arguments.keyword("target_memory")
        space = (
            MemorySpace.VEC
            if space_node is None
            else self.reader.memory_space(space_node)
        )
        arguments.finish()
        return Allocation(TileType(shape, element_type, space), node)

    def allocation(self, node: ast.expr) -> Allocation | None:
        """The `pl.tile.create(...)` tile `node` names, if it names one."""
        if not isinstance(node, ast.Name):
            return None
        binding = self.scope.lookup(node.id)
        return binding if isinstance(binding, Allocation) else None

    def typed(self, node: ast.expr, kind: type[Attribute], what: str) -> SSAValue:
        """A value of a `kind` type (`TileType`, `TensorType`, ...)."""
        value = self.value(node)
        if not isinstance(value.type, kind):
            self.fail(node, f"expected {what}, got {self.type_name(value.type)}")
        return value

    def tile(self, node: ast.expr) -> SSAValue:
        return self.typed(node, TileType, "a tile")

    def tensor(self, node: ast.expr) -> SSAValue:
        return self.typed(node, TensorType, "a tensor")

    def scalar(self, node: ast.expr, typ: Attribute) -> SSAValue:
        """A value of type `typ` (a literal becomes one)."""
        value = self.value(node, typ)
        if value.type != typ:
            self.fail(
                node,
                f"expected {self.type_name(typ)}, got {self.type_name(value.type)}",
            )
        return value

    def index(self, node: ast.expr) -> SSAValue:
        return self.scalar(node, _INDEX)

    def indices(self, node: ast.expr, what: str) -> list[SSAValue]:
        """`[i, j]`: one index per dimension."""
        if not isinstance(node, ast.List | ast.Tuple):
            self.fail(node, f"expected the {what} as a list")
        return [self.index(element) for element in node.elts]

    # -- scalar arithmetic --------------------------------------------------- #

    def scalar_operands(
        self,
        node: ast.expr,
        operand_nodes: Sequence[ast.expr],
        expected: Attribute | None,
    ) -> tuple[Attribute, list[SSAValue]]:
        """Operands that must have one scalar type; literals take the others' type."""
        operands = [self.operand(operand) for operand in operand_nodes]
        types = {op.type for op in operands if isinstance(op, SSAValue)}
        if len(types) > 1:
            names = " and ".join(sorted(self.type_name(t) for t in types))
            self.fail(node, f"operand types differ: {names}")
        literals = [op.value for op in operands if isinstance(op, Literal)]
        typ = next(iter(types), None) or expected
        if typ is None:
            floats = any(isinstance(value, float) for value in literals)
            typ = default_literal_type(0.0 if floats else 0)
        if typ == i1 or not (is_integer_type(typ) or is_float_type(typ)):
            self.fail(node, f"expected scalar operands, got {self.type_name(typ)}")
        return typ, [self.materialize(op, typ) for op in operands]

    def binary(self, node: ast.BinOp, expected: Attribute | None = None) -> SSAValue:
        typ, operands = self.scalar_operands(node, (node.left, node.right), expected)
        table = FLOAT_OPERATORS if is_float_type(typ) else INTEGER_OPERATORS
        op_type = table.get(type(node.op))
        if op_type is None:
            text = OPERATOR_TEXT.get(type(node.op)) or construct_name(node.op)
            hint = " (use //)" if isinstance(node.op, ast.Div) else ""
            self.fail(
                node,
                f"operator '{text}' is not supported on {self.type_name(typ)}{hint}",
            )
        return self.make(op_type, node, operands, (typ,)).results[0]

    def negate(self, node: ast.UnaryOp) -> SSAValue:
        value = self.value(node.operand)
        if is_float_type(value.type):
            return self.emit(arith.NegfOp(value), node).result
        if not is_integer_type(value.type) or value.type == i1:
            self.fail(node, f"cannot negate {self.type_name(value.type)}")
        zero = self.constant(Literal(0, node), value.type)
        return self.emit(arith.SubiOp(zero, value), node).result

    def unary(self, node: ast.UnaryOp) -> SSAValue:
        if isinstance(node.op, ast.USub):
            return self.negate(node)
        if isinstance(node.op, ast.UAdd):
            return self.value(node.operand)
        return self.fail(node, f"unsupported PyPTO construct '{construct_name(node)}'")

    def compare(self, node: ast.Compare) -> SSAValue:
        if len(node.ops) != 1:
            self.fail(node, "chained comparisons are not supported")
        typ, (lhs, rhs) = self.scalar_operands(
            node, (node.left, node.comparators[0]), None
        )
        table = FLOAT_PREDICATES if is_float_type(typ) else INTEGER_PREDICATES
        predicate = table.get(type(node.ops[0]))
        if predicate is None:
            self.fail(node, f"unsupported comparison '{construct_name(node.ops[0])}'")
        op_type = arith.CmpfOp if is_float_type(typ) else arith.CmpiOp
        return self.emit(op_type(lhs, rhs, predicate), node).result

    def min_max(self, node: ast.Call, name: str) -> SSAValue:
        arguments = self.arguments(node)
        arguments.expect(2, 2)
        membership = arguments.membership()
        arguments.finish()
        typ, operands = self.scalar_operands(node, arguments.positional, None)
        integer_op, float_op = MIN_MAX[name]
        op_type = float_op if is_float_type(typ) else integer_op
        op = self.make(op_type, node, operands, (typ,))
        apply_membership(op, membership)
        return op.results[0]

    # -- calls --------------------------------------------------------------- #

    @abstractmethod
    def tile_call(
        self, call: TileCall, node: ast.Call, annotation: Annotation | None
    ) -> SSAValue | None:
        """`pl.tile.<call>(...)`: the subclass's, with `calls.build_tile_call`."""

    def call(
        self, node: ast.Call, annotation: Annotation | None = None
    ) -> SSAValue | None:
        """A `pl.tile` op or `pl.min` / `pl.max`; None for a call without a result."""
        path = pl_path(node.func, self.alias) or ()
        if len(path) == 2 and path[0] == "tile" and path[1] in TILE_CALLS:
            return self.tile_call(TILE_CALLS[path[1]], node, annotation)
        if len(path) == 1 and path[0] in MIN_MAX:
            return self.min_max(node, path[0])
        if path == (TYPED_CONSTANT,):
            return self.typed_constant(node)
        if path == ("tile", ALLOCATION_CALL):
            self.fail(
                node,
                f"{dotted(node.func)}(...) must be assigned to a name, and can only "
                f"be the scratch tile of {self.alias}.tile.row_sum or row_max",
            )
        if path == ("yield_",):
            self.fail(
                node,
                f"{self.alias}.yield_ must be the last statement of a loop body or "
                "an if branch",
            )
        if path in (("range",), ("pipeline",)):
            self.fail(
                node, f"{dotted(node.func)}(...) can only be the iterable of a for loop"
            )
        if isinstance(node.func, ast.Attribute) and dotted(node.func).startswith(
            "self."
        ):
            self.fail(node, "calls between methods are not supported")
        if isinstance(node.func, ast.Name) and self.scope.lookup(node.func.id) is None:
            self.fail(node.func, f"unknown name '{node.func.id}'")
        return self.fail(node, f"unsupported PyPTO construct '{construct_name(node)}'")

    def typed_constant(self, node: ast.Call) -> SSAValue:
        """`pl.const(5, pl.INT32)`: a literal of the dtype PyPTO's printer gives it."""
        arguments = self.arguments(node)
        arguments.expect(2, 2)
        arguments.finish()
        value_node, dtype_node = arguments.positional
        literal = self._literal(value_node)
        if literal is None:
            self.fail(value_node, f"{arguments.name}(...) takes a number literal")
        typ = self.reader.dtype(dtype_node, SCALAR_DTYPES)
        return self.constant(Literal(literal, value_node), typ)

    def call_value(self, node: ast.Call) -> SSAValue:
        result = self.call(node)
        if result is None:
            self.fail(node, f"{dotted(node.func)}(...) has no result")
        return result

    def _literal(self, node: ast.expr) -> LiteralValue | None:
        """The number `node` spells: `5`, `-1.5`, `True`, `float("inf")`."""
        if isinstance(node, ast.Constant) and isinstance(
            node.value, bool | int | float
        ):
            if isinstance(node.value, float) and math.isinf(node.value):
                # Python reads `1e400` as an infinity: no literal means one.
                self.fail(
                    node,
                    "the float literal is too large: it rounds to an infinity "
                    '(write float("inf") for one)',
                )
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
            inner = self._literal(node.operand)
            if inner is None or isinstance(inner, bool):
                return None
            return -inner if isinstance(node.op, ast.USub) else inner
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "float"
            and self.scope.lookup("float") is None
            and len(node.args) == 1
            and not node.keywords
            and isinstance(node.args[0], ast.Constant)
            and node.args[0].value in _SPECIAL_FLOATS
        ):
            return float(node.args[0].value)
        return None


def _shown(value: LiteralValue) -> str:
    """A literal for a message: a huge integer abbreviated (`integer_text`)."""
    return integer_text(value) if type(value) is int else str(value)


@lru_cache(maxsize=1024)
def _float_attr(number: float, sign: float, typ: Attribute) -> FloatAttr[Any]:
    """
    `FloatAttr(number, typ)`, made once per value (`sign` tells 0.0 and -0.0
    apart): a program repeats its literals.
    """
    del sign
    return FloatAttr(number, cast(AnyFloat, typ))


@lru_cache(maxsize=1024)
def _integer_attr(value: int, typ: Attribute) -> IntegerAttr[Any]:
    """`IntegerAttr(value, typ)`, made once per value (as `_float_attr`)."""
    return IntegerAttr(value, cast(IndexType, typ))


_INDEX = IndexType()
"""The type of indices, made once (an index is read per offset of every access)."""

_SPECIAL_FLOATS = ("inf", "-inf", "nan")
"""`float("inf")` and the like: the floats without a literal."""

_EXPRESSIONS: dict[type[ast.AST], Callable[[ExpressionBuilder, Any], SSAValue]] = {
    ast.BinOp: ExpressionBuilder.binary,
    ast.UnaryOp: ExpressionBuilder.unary,
    ast.Compare: ExpressionBuilder.compare,
    ast.Call: ExpressionBuilder.call_value,
}
