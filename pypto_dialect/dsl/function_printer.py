"""
`FunctionPrinter`: the state of printing one `func.func` as a PyPTO method
(names, SSA versions of the tensor parameters, indentation) and the helpers
the statement and tile printers share. It prints a block's ops with the
statement printers it is given (`statement_printers.PRINTERS`), which are
written against it, so neither module imports the other's user.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import FloatAttr, IndexType, IntegerAttr, i1
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue

from pypto_dialect import tile
from pypto_dialect.allocation import BindOp, filled_binding
from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.dsl.annotations import (
    NoPyPTOForm,
    bound_tile_text,
    dtype_text,
    type_text,
)
from pypto_dialect.dsl.arguments import membership_text
from pypto_dialect.dsl.errors import fail
from pypto_dialect.dsl.literals import (
    float_literal_text,
    literal_misfit,
    nan_has_payload,
)
from pypto_dialect.dsl.naming import Names, is_python_name
from pypto_dialect.dsl.tables import (
    FLOAT_PREDICATES,
    INTEGER_PREDICATES,
    MODULE_ALIAS,
    OPERATOR_TEXT,
    LiteralValue,
    default_literal_type,
)
from pypto_dialect.numbers import integer_text
from pypto_dialect.pipeline import YieldOp
from pypto_dialect.types import TensorType, TileType
from pypto_dialect.walks import ancestors, walk_ops

PL = MODULE_ALIAS
INDENT = "    "
MAX_DEPTH = 99
"""The deepest indentation of a statement: Python parses 100 levels at most."""

StatementPrinters = Mapping[type[Operation], Callable[["FunctionPrinter", Any], None]]
"""The printer of each op type that is a statement (all but constants and inlined conditions)."""


def is_inlined_condition(op: Operation) -> bool:
    """A comparison that the next (non-constant) op, an `if`, uses only: `if a < b:`."""
    if not isinstance(op, arith.CmpiOp | arith.CmpfOp) or op.attributes:
        return False
    after = op.next_op
    while isinstance(after, arith.ConstantOp):
        after = after.next_op
    uses = list(op.result.uses)
    return isinstance(after, scf.IfOp) and len(uses) == 1 and uses[0].operation is after


def _literal(op: arith.ConstantOp) -> LiteralValue:
    """The Python number of a constant (a bool for `i1`)."""
    value = op.value
    if isinstance(value, FloatAttr):
        if nan_has_payload(value.value.data):
            fail(
                op,
                "has no PyPTO form: a NaN with a payload (PyPTO writes only the "
                'quiet NaNs float("nan") and -float("nan"))',
            )
        return value.value.data
    if not isinstance(value, IntegerAttr):
        fail(op, "has no PyPTO form (only scalar constants have one)")
    number = value.value.data
    if (misfit := literal_misfit(op.result.type, number)) is not None:
        fail(op, f"has no PyPTO form: {integer_text(number)} {misfit}")
    return bool(number) if op.result.type == i1 else number


def _literal_text(value: LiteralValue) -> str:
    return float_literal_text(value) if isinstance(value, float) else str(value)


_PREDICATES: dict[tuple[type[Operation], int], str] = {
    **{
        (arith.CmpiOp, arith.CMPI_COMPARISON_OPERATIONS.index(p)): OPERATOR_TEXT[c]
        for c, p in INTEGER_PREDICATES.items()
    },
    **{
        (arith.CmpfOp, arith.CMPF_COMPARISON_OPERATIONS.index(p)): OPERATOR_TEXT[c]
        for c, p in FLOAT_PREDICATES.items()
    },
}
"""`(op, predicate)` to the Python comparison operator."""


class FunctionPrinter:
    """Prints one `func.func` as a method."""

    def __init__(self, function: func.FuncOp, statements: StatementPrinters):
        if len(function.body.blocks) != 1:
            fail(
                function,
                f"has {len(function.body.blocks)} blocks, which have no PyPTO form "
                "(a method is one block of statements)",
            )
        self.function = function
        self.statements = statements
        self.names = Names()
        self.lines: list[str] = []
        self.depth = 2
        self.value_names: dict[SSAValue, str] = {}
        self.versions: dict[SSAValue, str] = {}
        """The name of the current SSA version of each tensor parameter."""
        self.written = _written_buffers(function)
        self.folded: set[BindOp] = set()
        """The bindings printed on the annotation of the op computing their tile."""
        self.literals: dict[arith.ConstantOp, tuple[LiteralValue, str]] = {}
        """Each constant's number and its text, checked once (constants have many uses)."""
        self.type_texts: dict[int, tuple[Attribute, str]] = {}
        """
        Annotations by the identity of their type (copies share their types;
        hashing a type costs a third of printing it), the type kept alive.
        """

    def text(self) -> str:
        function = self.function
        name = function.sym_name.data
        if not is_python_name(name):
            fail(function, f"the name '{name}' is not a PyPTO method name")
        parameters = ["self"]
        for arg in function.args:
            arg_name = self.names.new(arg.name_hint, f"arg{arg.index}")
            self.value_names[arg] = arg_name
            if isinstance(arg.type, TensorType):
                self.versions[arg] = arg_name
            parameters.append(f"{arg_name}: {self.type_of(arg.type, function)}")
        outputs = [self.type_of(t, function) for t in function.function_type.outputs]
        returns = (
            ""
            if not outputs
            else f" -> {outputs[0]}"
            if len(outputs) == 1
            else f" -> tuple[{', '.join(outputs)}]"
        )
        header = f"{INDENT}@{PL}.function\n{INDENT}def {name}({', '.join(parameters)}){returns}:"
        self.block(function.body.block)
        return "\n".join([header, *(self.lines or [f"{INDENT * self.depth}pass"])])

    # -- helpers ------------------------------------------------------------- #

    def emit(self, line: str) -> None:
        self.lines.append(INDENT * self.depth + line)

    def type_of(self, typ: Attribute, op: Operation) -> str:
        known = self.type_texts.get(id(typ))
        if known is not None:
            return known[1]
        try:
            text = type_text(typ)
        except NoPyPTOForm as error:
            return fail(op, str(error))
        self.type_texts[id(typ)] = (typ, text)
        return text

    def dtype(self, typ: Attribute, op: Operation) -> str:
        try:
            return dtype_text(typ)
        except NoPyPTOForm as error:
            return fail(op, str(error))

    def ref(
        self,
        value: SSAValue,
        user: Operation,
        typed: Attribute | None = None,
        *,
        inline: bool = True,
    ) -> str:
        """
        How `user` names `value`: a literal for a constant whose type the
        frontend gives back at this use (`typed`, else its literal's
        default), else a name (a constant gets an annotated statement).
        """
        if not isinstance(value.type, TensorType):
            named = self.value_names.get(value)  # never a constant's result
            if named is not None:
                return named
        owner = value.owner
        if isinstance(owner, arith.ConstantOp):
            known = self.literals.get(owner)
            if known is None:
                literal = _literal(owner)
                known = self.literals[owner] = (literal, _literal_text(literal))
            literal, text = known
            expected = typed if typed is not None else default_literal_type(literal)
            if inline and value.type == expected:
                return text
            name = self.names.new(value.name_hint, "c")
            self.emit(f"{name}: {self.type_of(value.type, owner)} = {text}")
            return name
        if isinstance(value.type, TensorType):
            if value not in self.versions:
                fail(
                    user,
                    "uses a tensor that is not a function parameter, which has no PyPTO form",
                )
            return self.versions[value]
        if value not in self.value_names:
            fail(user, "uses a value before its definition, which has no PyPTO form")
        return self.value_names[value]

    def refs(
        self,
        values: Iterable[SSAValue],
        user: Operation,
        typed: Attribute | None = None,
    ) -> str:
        return ", ".join(self.ref(value, user, typed) for value in values)

    def name(self, value: SSAValue, fallback: str) -> str:
        name = self.names.new(value.name_hint, fallback)
        self.value_names[value] = name
        return name

    def assign(self, op: Operation, expression: str) -> None:
        """
        `name: T = expression` for the result of `op`; when `op` computes its
        tile into a binding, the binding's tile, with the allocation in `T`.
        """
        result = op.results[0]
        binding = filled_binding(op)
        if binding is None:
            typ = self.type_of(result.type, op)
            self.emit(f"{self.name(result, 'v')}: {typ} = {expression}")
            return
        typ = self.bound_type(binding)
        bound = binding.result
        name = self.names.new(bound.name_hint or result.name_hint, "v")
        self.value_names[bound] = self.value_names[result] = name
        self.folded.add(binding)
        self.emit(f"{name}: {typ} = {expression}")

    def bound_type(self, binding: BindOp) -> str:
        """`pl.Tile[..., pl.MemRef("name", slots=N)[k], pl.Mem.X]` of a binding's tile."""
        declaration = binding.declaration
        slot = binding.slot
        index = None if slot is None else self.ref(slot, binding, IndexType())
        tile = binding.result.type
        assert isinstance(tile, TileType)
        try:
            return bound_tile_text(
                tile, declaration.label, declaration.num_slots, index
            )
        except NoPyPTOForm as error:
            return fail(binding, str(error))

    def keywords(self, op: Operation, *keywords: str, call: bool = True) -> str:
        """`, k=v, attrs={...}` for a call (the membership, checked for non-calls)."""
        membership = self.membership(op, call=call)
        extra = [*keywords, *([membership_text(membership)] if membership else [])]
        return "".join(f", {keyword}" for keyword in extra)

    def membership(self, op: Operation, *, call: bool = True) -> MembershipAttr | None:
        for name, attr in op.attributes.items():
            if (
                name == MEMBERSHIP_ATTR_NAME
                and call
                and isinstance(attr, MembershipAttr)
            ):
                continue
            if name == "fastmath" or (
                name == "split" and isinstance(op, tile.ChannelOp)
            ):
                continue
            fail(op, f"the attribute {name} has no PyPTO form here")
        attr = op.attributes.get(MEMBERSHIP_ATTR_NAME)
        return attr if isinstance(attr, MembershipAttr) else None

    # -- blocks -------------------------------------------------------------- #

    def block(self, block: Block) -> None:
        """The statements of `block` (its terminator is its parent's business)."""
        for op in block.ops:
            if op is block.last_op and isinstance(op, scf.YieldOp | YieldOp):
                continue
            if isinstance(op, arith.ConstantOp) or is_inlined_condition(op):
                continue
            printer = self.statements.get(type(op))
            if printer is None:
                fail(op, "has no PyPTO form")
            printer(self, op)

    def body(
        self,
        block: Block,
        versions: dict[SSAValue, str],
        yielded: Callable[[], Sequence[str]],
        targets: Callable[[], str],
    ) -> None:
        """
        `block` one level deeper, from the tensor `versions`, ending with
        `targets() = pl.yield_(yielded())` if it yields anything.
        """
        if self.depth >= MAX_DEPTH:
            fail(
                block.parent_op() or self.function,
                f"is nested too deeply for Python (at most {MAX_DEPTH} levels)",
            )
        saved = self.versions
        self.versions = {**saved, **versions}
        self.depth += 1
        start = len(self.lines)
        self.block(block)
        values = yielded()
        if values:
            self.emit(f"{targets()} = {PL}.yield_({', '.join(values)})")
        if len(self.lines) == start:
            self.emit("pass")
        self.depth -= 1
        self.versions = saved

    def results(self, op: Operation, buffers: Sequence[SSAValue]) -> list[str]:
        """Names for the results of `op` and the new versions of `buffers`."""
        return [
            *(self.name(result, "r") for result in op.results),
            *(self.names.new(self.value_names[b], "t") for b in buffers),
        ]

    def comparison(self, op: arith.CmpiOp | arith.CmpfOp) -> str:
        lhs, rhs = op.lhs, op.rhs
        text = _PREDICATES.get((type(op), op.predicate.value.data))
        if text is None:
            fail(op, "has no PyPTO form (this predicate has no Python operator)")
        typed = [
            None if isinstance(other.owner, arith.ConstantOp) else other.type
            for other in (rhs, lhs)
        ]
        return f"{self.ref(lhs, op, typed[0])} {text} {self.ref(rhs, op, typed[1])}"


def _written_buffers(function: func.FuncOp) -> dict[Operation, list[SSAValue]]:
    """Per op with regions: the tensor parameters stored to inside it, in order."""
    parameters = function.body.block
    written: dict[Operation, dict[SSAValue, None]] = {}
    for op in walk_ops(function):
        for value in (*op.operands, *op.results):
            if isinstance(value.type, TensorType) and not (
                isinstance(value, BlockArgument) and value.block is parameters
            ):
                fail(
                    op,
                    "carries a tensor value that is not a function parameter, which has "
                    "no PyPTO form (the target threads the parameters itself)",
                )
        if not isinstance(op, tile.StoreOp):
            continue
        dst = op.dst
        for around in ancestors(op):
            buffers = written.setdefault(around, {})
            if dst in buffers:
                break  # an earlier store put it in every op around this one too
            buffers[dst] = None
    return {
        around: sorted(
            buffers, key=lambda arg: arg.index if isinstance(arg, BlockArgument) else 0
        )
        for around, buffers in written.items()
    }
