"""
The target's statements: `pl.range` / `pl.pipeline` loops and `if`, with the
tensors they carry; scalar arithmetic, comparisons and `return`; and
`PRINTERS`, the printer of each op type (the tile ops: `tile_printers.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from xdsl.dialects import arith, func, scf
from xdsl.dialects.builtin import IndexType, i1
from xdsl.ir import Block, Operation

from pypto_dialect.dsl.errors import fail
from pypto_dialect.dsl.function_printer import (
    FunctionPrinter,
    StatementPrinters,
    is_inlined_condition,
)
from pypto_dialect.dsl.tables import (
    EXPORT_CALLS,
    FLOAT_OPERATORS,
    INTEGER_OPERATORS,
    MIN_MAX,
    OPERATOR_TEXT,
)
from pypto_dialect.dsl.tables import MODULE_ALIAS as PL
from pypto_dialect.dsl.tile_printers import print_tile_op
from pypto_dialect.pipeline import PipelineOp


def _reversed(table: Any) -> dict[type[Operation], str]:
    return {op: OPERATOR_TEXT[operator] for operator, op in table.items()}


_OPERATORS = {**_reversed(INTEGER_OPERATORS), **_reversed(FLOAT_OPERATORS)}
_MIN_MAX = {op: name for name, ops in MIN_MAX.items() for op in ops}


def _tuple(names: Sequence[str]) -> str:
    return f"({names[0]},)" if len(names) == 1 else f"({', '.join(names)})"


def _targets(names: Sequence[str]) -> str:
    return ", ".join(names)


def _loop(p: FunctionPrinter, op: scf.ForOp | PipelineOp) -> None:
    if op.lb.type != IndexType():
        fail(op, "has no PyPTO form (its bounds are not index values)")
    buffers = p.written.get(op, [])
    bounds = p.refs((op.lb, op.ub, op.step), op, IndexType())
    inits = [p.ref(v, op) for v in op.iter_args] + [p.versions[b] for b in buffers]
    block = op.body.block
    induction = p.name(block.args[0], "i")
    carried = [p.name(arg, "a") for arg in block.args[1:]]
    inner = {b: p.names.new(p.value_names[b], "t") for b in buffers}
    keywords = [f"init_values={_tuple(inits)}"] if inits else []
    if isinstance(op, PipelineOp):
        keywords.append(f"stage={op.num_stages}")
        keywords.extend(
            f"{name}={value}" for name, value in op.policy.changed().items()
        )
    kind = "pipeline" if isinstance(op, PipelineOp) else "range"
    names = [*carried, *inner.values()]
    targets = f"{induction}, {_tuple(names)}" if names else induction
    p.emit(f"for {targets} in {PL}.{kind}({bounds}{p.keywords(op, *keywords)}):")
    terminator = block.last_op
    assert terminator is not None

    def yielded() -> list[str]:
        values = [
            p.ref(value, terminator, arg.type)
            for value, arg in zip(terminator.operands, block.args[1:], strict=True)
        ]
        return values + [p.versions[b] for b in buffers]

    results: list[str] = []

    def targets_text() -> str:
        results.extend(p.results(op, buffers))
        return _targets(results)

    p.body(block, inner, yielded, targets_text)
    p.versions.update(zip(buffers, results[len(op.results) :], strict=True))


def _if(p: FunctionPrinter, op: scf.IfOp) -> None:
    buffers = p.written.get(op, [])
    owner = op.cond.owner
    condition = (
        p.comparison(owner)
        if isinstance(owner, arith.CmpiOp | arith.CmpfOp)
        and is_inlined_condition(owner)
        else p.ref(op.cond, op, i1)
    )
    p.emit(f"if {condition}:")
    branches = [region.block for region in op.regions if region.blocks]
    yields = [block.last_op for block in branches]
    if any(len(y.operands) != len(op.results) for y in yields if y is not None):
        # Stock xdsl-opt verifies such an `scf.if` (our tools' verifier does not).
        fail(op, "has no PyPTO form: a branch yields other than its results")
    pairs = list(zip(*(y.operands for y in yields if y is not None), strict=True))
    typed = [
        None
        if all(isinstance(v.owner, arith.ConstantOp) for v in pair)
        else pair[0].type
        for pair in pairs
    ]
    results: list[str] = []
    before = dict(p.versions)

    def branch(block: Block | None) -> None:
        terminator = None if block is None else block.last_op

        def yielded() -> list[str]:
            values = (
                []
                if terminator is None
                else [
                    p.ref(value, terminator, typ)
                    for value, typ in zip(terminator.operands, typed, strict=True)
                ]
            )
            return values + [p.versions[b] for b in buffers]

        def targets() -> str:
            if not results:
                results.extend(p.results(op, buffers))
            return _targets(results)

        p.body(block or Block(), {}, yielded, targets)

    branch(branches[0])
    else_block = branches[1] if len(branches) > 1 else None
    if (else_block is not None and (len(else_block.ops) > 1 or op.results)) or buffers:
        p.emit("else:")
        p.versions = dict(before)
        branch(else_block)
    p.versions = before
    p.versions.update(zip(buffers, results[len(op.results) :], strict=True))


def _binary(p: FunctionPrinter, op: Operation) -> None:
    lhs, rhs = op.operands
    typ = op.results[0].type
    p.membership(op, call=False)
    p.assign(op, f"{p.ref(lhs, op, typ)} {_OPERATORS[type(op)]} {p.ref(rhs, op, typ)}")


def _min_max(p: FunctionPrinter, op: Operation) -> None:
    typ = op.results[0].type
    p.assign(
        op, f"{PL}.{_MIN_MAX[type(op)]}({p.refs(op.operands, op, typ)}{p.keywords(op)})"
    )


def _negate(p: FunctionPrinter, op: arith.NegfOp) -> None:
    p.membership(op, call=False)
    # A literal would come back as a negative constant: name it.
    p.assign(op, f"-{p.ref(op.operand, op, inline=False)}")


def _compare(p: FunctionPrinter, op: arith.CmpiOp | arith.CmpfOp) -> None:
    p.membership(op, call=False)
    p.assign(op, p.comparison(op))


def _return(p: FunctionPrinter, op: func.ReturnOp) -> None:
    p.membership(op, call=False)
    if op.arguments:
        outputs = p.function.function_type.outputs.data
        values = [
            p.ref(v, op, typ) for v, typ in zip(op.arguments, outputs, strict=True)
        ]
        p.emit(f"return {', '.join(values)}")


PRINTERS: StatementPrinters = {
    **dict.fromkeys(EXPORT_CALLS, print_tile_op),
    **dict.fromkeys(_OPERATORS, _binary),
    **dict.fromkeys(_MIN_MAX, _min_max),
    arith.NegfOp: _negate,
    arith.CmpiOp: _compare,
    arith.CmpfOp: _compare,
    scf.ForOp: _loop,
    PipelineOp: _loop,
    scf.IfOp: _if,
    func.ReturnOp: _return,
}
