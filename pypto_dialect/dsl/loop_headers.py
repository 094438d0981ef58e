"""
The header of a PyPTO for loop: `pl.range(...)` or `pl.pipeline(...)` read
into bounds, `init_values`, stages and the pipeline policy, and its targets
(the induction variable and the loop-carried names).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, cast

from xdsl.dialects.builtin import IndexType
from xdsl.ir import SSAValue

from pypto_dialect.attributes import MembershipAttr
from pypto_dialect.dsl.annotations import pl_path
from pypto_dialect.dsl.expressions import ExpressionBuilder, Literal
from pypto_dialect.numbers import integer_text
from pypto_dialect.pipeline import DEFAULT_POLICY, PipelinePolicy


@dataclass(frozen=True)
class LoopHeader:
    """The iterable of a for loop: `pl.range(...)` or `pl.pipeline(...)`."""

    node: ast.For
    lb: SSAValue
    ub: SSAValue
    step: SSAValue
    inits: list[SSAValue]
    stages: int | None
    """None for `pl.range`."""
    policy: PipelinePolicy
    membership: MembershipAttr | None

    @classmethod
    def read(cls, b: ExpressionBuilder, node: ast.For) -> LoopHeader:
        call = node.iter
        path = pl_path(call.func, b.alias) if isinstance(call, ast.Call) else None
        if not isinstance(call, ast.Call) or path not in (("range",), ("pipeline",)):
            b.fail(
                node.iter,
                f"a for loop must iterate over {b.alias}.range(...) or "
                f"{b.alias}.pipeline(...)",
            )
        arguments = b.arguments(call)
        arguments.expect(1, 3)
        membership = arguments.membership()
        given = arguments.positional
        start, stop, step = [*([None] if len(given) == 1 else []), *given, None][:3]
        lb = b.index(start) if start else b.constant(Literal(0, call), IndexType())
        assert stop is not None
        ub = b.index(stop)
        step_value = (
            b.index(step) if step else b.constant(Literal(1, call), IndexType())
        )
        inits_node = arguments.keyword("init_values")
        if inits_node is not None and not isinstance(inits_node, ast.Tuple | ast.List):
            b.fail(inits_node, "init_values must be a tuple of values")
        inits = [b.value(init) for init in inits_node.elts] if inits_node else []
        pipeline = path == ("pipeline",)
        options = {name: arguments.keyword(name) for name in _PIPELINE_OPTIONS}
        stages: int | None = None
        if pipeline:
            stages = _literal(b, options.pop("stage"), int, 1)
        for name, option in options.items():
            if option is not None and not pipeline:
                b.fail(option, f"{name}= is only valid for {b.alias}.pipeline(...)")
        policy = PipelinePolicy(
            **{
                name: _literal(b, option, bool, getattr(DEFAULT_POLICY, name))
                for name, option in options.items()
                if name != "stage"
            }
        )
        arguments.finish()
        return cls(node, lb, ub, step_value, inits, stages, policy, membership)

    def targets(self, b: ExpressionBuilder) -> tuple[ast.Name, list[ast.Name]]:
        """The induction variable and the names of the loop-carried values."""
        target = self.node.target
        if not self.inits:
            if not isinstance(target, ast.Name):
                b.fail(
                    target, "a loop without init_values takes one name: for i in ..."
                )
            return target, []
        if not (isinstance(target, ast.Tuple) and len(target.elts) == 2):
            b.fail(target, "a loop with init_values takes: for i, (a, b, ...) in ...")
        induction, carried = target.elts
        names = carried.elts if isinstance(carried, ast.Tuple) else [carried]
        if len(names) != len(self.inits):
            b.fail(
                carried,
                f"{counted(len(names), 'loop-carried name')} for "
                f"{counted(len(self.inits), 'init_value')}",
            )
        for name in (induction, *names):
            if not isinstance(name, ast.Name):
                b.fail(name, "the targets of a for loop must be names")
        return cast(ast.Name, induction), cast(list[ast.Name], names)


_PIPELINE_OPTIONS = ("stage", "overlap_stores", "double_buffer_acc")
"""The keywords of `pl.pipeline` besides init_values (the last two are ours)."""


def _literal(
    b: ExpressionBuilder, node: ast.expr | None, kind: type[Any], default: Any
) -> Any:
    """An int (at least 1) or bool literal keyword value; `default` if absent."""
    if node is None:
        return default
    value: object = node.value if isinstance(node, ast.Constant) else None
    if type(value) is not kind or (
        isinstance(value, int) and kind is int and value < 1
    ):
        what = "a positive integer" if kind is int else "True or False"
        b.fail(node, f"expected {what} literal")
    if isinstance(value, int) and value > _MAX_STAGE:
        fit = f"does not fit in a 64-bit integer (1 to {_MAX_STAGE})"
        b.fail(node, f"the literal {integer_text(value)} {fit}")
    return value


_MAX_STAGE = 2**63 - 1
"""`stages` is a signed 64-bit property (`IntegerAttr[I64]`)."""


def counted(number: int, noun: str) -> str:
    """A number and its noun: `1 value`, `3 values`."""
    return f"{number} {noun}{'' if number == 1 else 's'}"
