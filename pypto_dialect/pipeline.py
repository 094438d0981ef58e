"""`pypto.pipeline`, the `pl.pipeline` loop, and its terminator `pypto.yield`."""

from __future__ import annotations

import dataclasses
from collections.abc import Generator, Iterable, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from itertools import chain

from xdsl.dialects.builtin import I64, BoolAttr, IndexType, IntegerAttr, i64
from xdsl.dialects.utils import (
    AbstractYieldOperation,
    parse_assignment,
    print_assignment,
)
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
)
from xdsl.irdl import (
    IRDLOperation,
    lazy_traits_def,
    operand_def,
    opt_prop_def,
    prop_def,
    region_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.traits import (
    HasParent,
    IsTerminator,
    Pure,
    RecursiveMemoryEffect,
    SingleBlockImplicitTerminator,
    ensure_terminator,
)
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.dominance import DominanceWalk
from pypto_dialect.fast_verify import pypto_op_definition
from pypto_dialect.numbers import integer_text
from pypto_dialect.syntax import print_pieces, separated
from pypto_dialect.types import parse_type
from pypto_dialect.walks import ancestors

_TRUE = IntegerAttr.from_bool(True)
_FALSE = IntegerAttr.from_bool(False)


@dataclass(frozen=True)
class PipelinePolicy:
    """
    How the passes treat a pipeline's body: the optional properties of
    `pypto.pipeline`, with their defaults (which are not stored).
    """

    overlap_stores: bool = True
    """Stores are ordered as stores, after their stage's compute (else as compute)."""
    double_buffer_acc: bool = False
    """Matmuls into `acc` are tagged and rotate over two L0C buffers."""

    def changed(self) -> dict[str, bool]:
        """The properties that differ from the defaults, by name, in field order."""
        return {
            name: value
            for name in _POLICY_NAMES
            if (value := getattr(self, name)) != getattr(DEFAULT_POLICY, name)
        }


DEFAULT_POLICY = PipelinePolicy()
_POLICY_NAMES = tuple(field.name for field in dataclasses.fields(PipelinePolicy))


_BODY_DOMINANCE = ContextVar("pypto_pipeline_body_dominance", default=True)
"""Whether `pypto.pipeline`'s verifier checks the dominance in its body."""


@contextmanager
def body_dominance_checked_by_caller() -> Generator[None]:
    """
    Verifiers that run in the block leave the dominance of pipeline bodies
    to the caller, who checks a whole module (once, not again per nest).
    """
    token = _BODY_DOMINANCE.set(False)
    try:
        yield
    finally:
        _BODY_DOMINANCE.reset(token)


def _enclosing_blocks(op: Operation) -> set[Block]:
    """The blocks that contain `op`, directly or through its ancestors."""
    return {
        block
        for around in chain((op,), ancestors(op))
        if (block := around.parent_block()) is not None
    }


def _defining_block(value: SSAValue) -> Block | None:
    if isinstance(value, BlockArgument):
        return value.block
    if isinstance(value, OpResult):
        return value.op.parent_block()
    return None  # an unresolved forward reference of the parser


def _verify_used_inside(values: Iterable[SSAValue], inside: set[int]) -> None:
    """The uses of `values`, defined in a body, are all by ops `inside` it (ids)."""
    for value in values:
        for use in value.uses:
            if id(use.operation) in inside:
                continue
            name = "a value" if value.name_hint is None else f"%{value.name_hint}"
            raise VerifyException(
                f"{name} is defined in the body but used outside the loop, by "
                f"'{use.operation.name}'"
            )


@pypto_op_definition
class YieldOp(AbstractYieldOperation[Attribute]):
    """`pypto.yield %v : type`: the loop-carried values of the next iteration."""

    name = "pypto.yield"

    traits = lazy_traits_def(lambda: (IsTerminator(), HasParent(PipelineOp), Pure()))

    assembly_format = None
    """Upstream's format (`attr-dict ($arguments^ : type($arguments))?`), by hand."""

    @classmethod
    def parse(cls, parser: Parser) -> YieldOp:
        attributes = parser.parse_optional_attr_dict()
        pos = parser.pos
        values = parser.parse_optional_undelimited_comma_separated_list(
            parser.parse_optional_unresolved_operand, parser.parse_unresolved_operand
        )
        operands: Sequence[SSAValue] = ()
        if values is not None:
            parser.parse_punctuation(":")
            types = parser.parse_comma_separated_list(
                Parser.Delimiter.NONE, lambda: parse_type(parser)
            )
            operands = parser.resolve_operands(values, types, pos)
        return cls.create(operands=operands, attributes=attributes)

    def print(self, printer: Printer) -> None:
        if self.attributes:
            printer.print_op_attributes(self.attributes)
        values = self.operands
        if not values:
            return
        printer.print_string(" ")
        printer.print_list(values, printer.print_ssa_value)
        print_pieces(printer, [" : ", *separated([value.type for value in values])])


@pypto_op_definition
class PipelineOp(IRDLOperation):
    """
    A `pl.pipeline` loop: `scf.for` semantics, plus a request (`stages F`) to
    replicate the body F times for ping-pong buffering.
    """

    name = "pypto.pipeline"

    lb = operand_def(IndexType)
    ub = operand_def(IndexType)
    step = operand_def(IndexType)
    iter_args = var_operand_def()

    res = var_result_def()

    stages = prop_def(IntegerAttr[I64])
    overlap_stores = opt_prop_def(BoolAttr, default_value=_TRUE)
    double_buffer_acc = opt_prop_def(BoolAttr, default_value=_FALSE)

    body = region_def("single_block")

    traits = traits_def(SingleBlockImplicitTerminator(YieldOp), RecursiveMemoryEffect())

    def __init__(  # noqa: PLR0917 (scf.for's positional order, plus stages)
        self,
        lb: SSAValue | Operation,
        ub: SSAValue | Operation,
        step: SSAValue | Operation,
        iter_args: Sequence[SSAValue | Operation],
        body: Region | Sequence[Operation] | Sequence[Block] | Block,
        stages: int | IntegerAttr[I64],
        *,
        policy: PipelinePolicy = DEFAULT_POLICY,
    ):
        if isinstance(body, Block):
            body = [body]
        super().__init__(
            operands=[lb, ub, step, iter_args],
            result_types=[[SSAValue.get(a).type for a in iter_args]],
            properties=pipeline_properties(stages, policy),
            regions=[body],
        )

    @property
    def num_stages(self) -> int:
        return self.stages.value.data

    @property
    def induction_var(self) -> SSAValue:
        return self.body.block.args[0]

    @property
    def region_iter_args(self) -> Sequence[BlockArgument]:
        return self.body.block.args[1:]

    @property
    def policy(self) -> PipelinePolicy:
        """The policy properties."""
        return PipelinePolicy(
            overlap_stores=bool(self.overlap_stores.value.data),
            double_buffer_acc=bool(self.double_buffer_acc.value.data),
        )

    def verify_(self) -> None:
        if self.num_stages < 1:
            raise VerifyException(f"stages must be at least 1, got {self.num_stages}")
        block = self.body.block
        if not block.args or not isinstance(block.args[0].type, IndexType):
            raise VerifyException(
                "body must take the index induction variable as its first argument"
            )
        self._verify_matches_iter_args(
            "loop-carried block argument", [arg.type for arg in block.args[1:]]
        )
        self._verify_matches_iter_args("result", self.res.types)
        terminator = block.last_op
        if not isinstance(terminator, YieldOp):
            raise VerifyException("body must end with pypto.yield")
        self._verify_matches_iter_args(
            "pypto.yield operand", terminator.arguments.types
        )
        # The outermost pipeline checks the bodies of those nested in it: one
        # walk per nest, not one per level; none when the caller checks the
        # whole module (`checked.verify_module`).
        if _BODY_DOMINANCE.get() and not any(
            isinstance(outer, PipelineOp) for outer in ancestors(self)
        ):
            self._verify_dominance()

    def _verify_dominance(self) -> None:
        """
        Every value the body uses is defined before the use (`DominanceWalk`),
        in the body or in a block around the loop (there in any order: the
        whole module's order is `checked.verify_module`'s to check); and no
        value of the body is used outside it. xDSL checks no dominance, so
        without this a body using a value before defining it (or one of
        another loop's region) would verify, and only the output of a
        lowering would fail to. It covers the pipelines nested in the body too.
        """
        enclosing = {id(block) for block in _enclosing_blocks(self)}
        walk = DominanceWalk(
            lambda value: id(_defining_block(value)) in enclosing, record=True
        )
        violation = walk.first_violation([self.body])
        if violation is not None:
            whose = f" of '{violation.op.name}' in the body"
            raise VerifyException(violation.describe(whose))
        _verify_used_inside(walk.values, walk.ops)

    def _verify_matches_iter_args(self, what: str, types: Sequence[Attribute]) -> None:
        """Check that `types` (of block arguments, results or yield) match iter_args."""
        expected = self.iter_args.types
        if len(types) != len(expected):
            raise VerifyException(
                f"expected {len(expected)} {what}s (one per iter_arg), got {len(types)}"
            )
        for index, (actual, init) in enumerate(zip(types, expected, strict=True)):
            if actual != init:
                raise VerifyException(
                    f"{what} #{index} has type {actual} but iter_arg #{index} has "
                    f"type {init}"
                )

    def print(self, printer: Printer) -> None:
        body = self.body
        arguments = body.block.args
        operands = self.operands
        printer.print_string(" ")
        printer.print_ssa_value(arguments[0])
        printer.print_string(" = ")
        printer.print_ssa_value(operands[0])
        printer.print_string(" to ")
        printer.print_ssa_value(operands[1])
        printer.print_string(" step ")
        printer.print_ssa_value(operands[2])
        text = f" stages {self.num_stages}"
        if any(name in self.properties for name in _POLICY_NAMES):
            for name, value in self.policy.changed().items():
                text += f" {name} = {'true' if value else 'false'}"
        carried = len(operands) > 3
        if carried:
            printer.print_string(text + " iter_args(")
            printer.print_list(
                zip(arguments[1:], operands[3:], strict=False),
                lambda pair: print_assignment(printer, *pair),
            )
            print_pieces(printer, [") -> (", *separated(self.res.types), ")"])
            text = ""
        printer.print_string(text + " ")
        printer.print_region(
            body,
            print_entry_block_args=False,
            print_empty_block=False,
            print_block_terminators=carried,
        )
        if self.attributes:
            printer.print_op_attributes(self.attributes)

    @classmethod
    def parse(cls, parser: Parser) -> PipelineOp:
        index = IndexType()
        induction_var = parser.parse_argument(expect_type=False).resolve(index)
        parser.parse_punctuation("=")
        lb = parser.parse_operand(index)
        parser.parse_keyword("to")
        ub = parser.parse_operand(index)
        parser.parse_keyword("step")
        step = parser.parse_operand(index)
        parser.parse_keyword("stages")
        start = parser.pos
        stages = parser.parse_integer(allow_boolean=False)
        if not -(1 << 63) <= stages < 1 << 63:
            parser.raise_error(
                f"stages {integer_text(stages)} does not fit in a 64-bit integer",
                start,
                parser.pos,
            )

        # The policy properties, in any order (printed in field order).
        policy: dict[str, bool] = {}
        while True:
            start = parser.pos
            name = parser.parse_optional_keyword_in(_POLICY_NAMES)
            if name is None:
                break
            if name in policy:
                parser.raise_error(
                    f"policy property {name} is given twice", start, parser.pos
                )
            parser.parse_punctuation("=")
            policy[name] = parser.parse_boolean()

        carried_args: list[Parser.UnresolvedArgument] = []
        carried_inits: list[UnresolvedOperand] = []
        carried_types: list[Attribute] = []
        pos = parser.pos
        if parser.parse_optional_keyword("iter_args"):
            for arg, init in parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_assignment(parser)
            ):
                carried_args.append(arg)
                carried_inits.append(init)
            parser.parse_punctuation("->")
            carried_types = parser.parse_comma_separated_list(
                Parser.Delimiter.PAREN, lambda: parse_type(parser)
            )
            if len(carried_types) != len(carried_args):
                parser.raise_error(
                    f"{len(carried_args)} iter_args but {len(carried_types)} result "
                    "types",
                    pos,
                    parser.pos,
                )
        inits = parser.resolve_operands(carried_inits, carried_types, pos)
        block_args = [
            arg.resolve(typ)
            for arg, typ in zip(carried_args, carried_types, strict=True)
        ]
        body = parser.parse_region((induction_var, *block_args))
        attrs = parser.parse_optional_attr_dict()

        op = cls.create(
            operands=[lb, ub, step, *inits],
            result_types=carried_types,
            properties=pipeline_properties(stages, PipelinePolicy(**policy)),
            attributes=attrs,
            regions=[body],
        )
        if not carried_args:
            _ensure_yield(op)
        return op


_STAGES: dict[int, IntegerAttr[I64]] = {}
"""`stages` properties by value, as most pipelines share a few stage counts."""
_STAGES_CACHED = range(1, 65)


def pipeline_properties(
    stages: int | IntegerAttr[I64], policy: PipelinePolicy
) -> dict[str, Attribute]:
    """
    The properties of a `pypto.pipeline` with `stages` and `policy` (only
    the policy's values that differ from the defaults are stored).
    """
    properties: dict[str, Attribute] = {
        "stages": _stages_attr(stages) if isinstance(stages, int) else stages
    }
    for name, value in policy.changed().items():
        properties[name] = _TRUE if value else _FALSE
    return properties


def _stages_attr(stages: int) -> IntegerAttr[I64]:
    attr = _STAGES.get(stages)
    if attr is None:
        attr = IntegerAttr(stages, i64)
        if stages in _STAGES_CACHED:
            _STAGES[stages] = attr
    return attr


def _ensure_yield(op: PipelineOp) -> None:
    """`ensure_terminator` (the implicit `pypto.yield`), quicker for one block."""
    blocks = op.body.blocks
    block = blocks.first if len(blocks) == 1 else None
    if block is not None and (
        (last := block.last_op) is None or not last.has_trait(IsTerminator)
    ):
        block.add_op(YieldOp.create())
        return
    for trait in op.get_traits_of_type(SingleBlockImplicitTerminator):
        ensure_terminator(op, trait)
