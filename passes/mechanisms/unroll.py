"""
Unrolling a `pypto.pipeline` by a factor, the mechanism of
`lower-pipeline-loops` (like MLIR's `loopUnrollByFactor`): a main loop whose
body holds F copies of the original body, then the remaining iterations,
in one of two shapes (`Remainder`): flattened copies for static bounds and
an `scf.if` cascade for dynamic ones (`cascade`), or one `scf.for` of the
original body (`loop`); the iter_args are threaded through all of them. It
knows nothing of membership tags or groups: an `annotate` callback sees
every region of copies it builds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Literal, get_args

from xdsl.builder import Builder
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, LocationAttr, i1, i64
from xdsl.ir import Block, Operation, OpResult, Region, SSAValue
from xdsl.ir.core import OpT
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint

from passes.mechanisms.demote import demote_to_scf_for
from pypto_dialect.constants import constant_int
from pypto_dialect.numbers import INDEX_MIN
from pypto_dialect.pipeline import PipelineOp, YieldOp, pipeline_properties
from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import (
    BlockCopier,
    block_ops,
    create_op,
    insert_fresh,
    set_valid_name,
)

Copies = Sequence[Sequence[Operation]]
"""
The copies of the body in one region, in order: each the ops of one copy,
in the order of the body's ops (its terminator left out). Copy 0 of the
main loop is the original body itself, as in MLIR's `loopUnrollByFactor`.
"""

Annotate = Callable[[Copies], None]
"""
Called once per region of copies (the main loop's body, the static
remainder, each branch of the cascade, the body of the remainder loop), in
the order they are built.
"""

Remainder = Literal["cascade", "loop"]
"""
How the iterations after the main loop run. `cascade` (PyPTO's shape):
flattened copies for static bounds, an `scf.if` per possible count for
dynamic ones, F(F-1)/2 copies in all. `loop`: one `scf.for` of the
original body from the main loop's end to the upper bound, one copy; a
static remainder of a single iteration is that copy, flattened.
"""
REMAINDERS: tuple[Remainder, ...] = get_args(Remainder)
"""The values of `Remainder`."""


def static_bounds(loop: PipelineOp, step: int) -> tuple[int, int] | None:
    """The lower bound and trip count of `loop` when its bounds are constants."""
    lb, ub = constant_int(loop.lb), constant_int(loop.ub)
    if lb is None or ub is None:
        return None
    return lb, max(0, -((lb - ub) // step))


def body_copies(factor: int, trip: int | None, remainder: Remainder) -> int:
    """
    How many copies of the body unrolling by `factor` creates: F in the main
    loop's body (if it runs), plus for a static trip count the flattened
    remainder (`cascade`) or at most one (`loop`), and for a dynamic one the
    F(F-1)/2 of the `scf.if` cascade or the one of the remainder loop.
    """
    if trip is None:
        return factor + (factor * (factor - 1) // 2 if remainder == "cascade" else 1)
    main_iters, left = divmod(trip, factor)
    if remainder == "loop":
        left = min(left, 1)
    return (factor if main_iters else 0) + left


def flattened_iterations(
    lb: int, trip: int, factor: int, step: int, remainder: Remainder
) -> range:
    """
    The indices of the iterations a static unrolling flattens, where the
    induction variable becomes a constant: the remainder after the main
    loop, unless a remainder loop (`loop`, two or more iterations) runs it.
    """
    main_iters, rest = divmod(trip, factor)
    if rest > 1 and remainder == "loop":
        return range(0)
    # The remainder lies in [lb, ub): no overflow.
    start = lb + main_iters * factor * step
    return range(start, start + rest * step, step)


def unroll_by_factor(
    loop: PipelineOp,
    factor: int,
    step: int,
    rewriter: PatternRewriter,
    annotate: Annotate,
    *,
    remainder: Remainder = "cascade",
) -> None:
    """
    Replace `loop`, whose step is the positive constant `step`, by a
    `stages 1` main loop with step `factor * step` and F copies of the body,
    followed by the remaining iterations, shaped as `remainder` says. The
    caller checks that `factor * step` fits the index type (`body_copies`
    says how large the result is). A loop that never runs becomes an `scf.for`.
    """
    unrolling = _Unrolling(loop, factor, step, rewriter, annotate, remainder=remainder)
    bounds = static_bounds(loop, step)
    if bounds is None:
        unrolling.unroll_dynamic()
    else:
        unrolling.unroll_static(*bounds)


_INDEX = IndexType()
_EQ = IntegerAttr(0, i64)
"""`arith.cmpi`'s predicate `eq`."""


@lru_cache(maxsize=4096)
def _index_attr(value: int) -> IntegerAttr[IndexType]:
    """The `index` attribute of `value` (attributes are immutable: shared)."""
    return IntegerAttr(value, _INDEX)


def index_constant(value: int, location: LocationAttr) -> arith.ConstantOp:
    """`arith.constant value : index` at `location`, detached, built directly."""
    return create_op(
        arith.ConstantOp, (), (_INDEX,), {"value": _index_attr(value)}, location
    )


@lru_cache(maxsize=4096)
def _valid_name(name: str) -> str:
    """What setting `name_hint` to `name` stores (checked once per name)."""
    return OpResult.extract_valid_name(name)


def _with_suffix(name: str | None, suffix: str) -> str | None:
    return None if name is None else name + suffix


SHORT_MODULUS = 2**62
"""
The largest `F*step` whose dynamic bounds take the short `offset_mod`: twice
it fits in `index`.
"""


class _Unrolling:
    """
    The unrolling of one loop: the bounds arithmetic, the main loop, the
    remainder (`Remainder`), and the body copies. New scalars go right before the loop;
    the loop is replaced at the end. Every op it creates has the loop's
    location (copies keep their own).
    """

    def __init__(
        self,
        loop: PipelineOp,
        factor: int,
        step: int,
        rewriter: PatternRewriter,
        annotate: Annotate,
        *,
        remainder: Remainder,
    ):
        self.loop = loop
        self.factor = factor
        self.step = step
        self.rewriter = rewriter
        self.annotate = annotate
        self.remainder: Remainder = remainder

        self.body = loop.body
        block = self.body.block
        terminator = block.last_op
        assert isinstance(terminator, YieldOp), "verified pipelines end in pypto.yield"
        self.body_args = block.args
        self.body_ops = block_ops(block)[:-1]
        self.yielded = tuple(terminator.arguments)
        self.copier = BlockCopier(self.body_args, self.body_ops, self.yielded)
        self.uses_index = self.body_args[0].first_use is not None

        # The loop's fields, read once (IRDL's accessors cost a call each).
        self.lb, self.ub, self.step_value = loop.lb, loop.ub, loop.step
        self.iter_args = tuple(loop.iter_args)
        self.results = loop.results
        # The constant operands already hold some of the values we need.
        self.constants: dict[int, SSAValue] = {
            value: operand
            for operand in (self.lb, self.ub, self.step_value)
            if (value := constant_int(operand)) is not None
        }

    def located(self, op: OpT) -> OpT:
        """`op`, at the location of the loop it unrolls."""
        op.location = self.loop.location
        return op

    def insert_named(
        self, builder: Builder, op: Operation, name: str | None
    ) -> SSAValue:
        """Insert a single-result op made at the loop's location and name its result."""
        insert_fresh(builder, (op,))
        result = op.results[0]
        set_valid_name(result, None if name is None else _valid_name(name))
        return result

    def index_op(self, cls: type[OpT], *operands: SSAValue) -> OpT:
        """
        `cls(*operands)` for an `index` op of `index` operands, at the loop's
        location, built directly (IRDL's generic constructor costs as much
        as cloning a whole tile op).
        """
        return create_op(cls, operands, (_INDEX,), {}, self.loop.location)

    def constant(self, value: int) -> SSAValue:
        """An index constant before the loop, created at most once per value."""
        if value not in self.constants:
            constant = index_constant(value, self.loop.location)
            self.constants[value] = self.insert_named(
                self.rewriter, constant, f"c{value}"
            )
        return self.constants[value]

    def copy_index(
        self, base: SSAValue | int, k: int
    ) -> tuple[SSAValue, tuple[Operation, ...]]:
        """
        The induction variable of copy k, `base + k*step`, and the op that
        computes it, if one does, not yet inserted. A body that does not use
        its induction variable gets the original one, and no op computes it.
        """
        if not self.uses_index:
            return self.body_args[0], ()
        if isinstance(base, int):
            return self.constant(base + k * self.step), ()
        if k == 0:
            return base, ()
        offset = self.index_op(arith.AddiOp, base, self.constant(k * self.step))
        index = offset.results[0]
        # The argument's own name, valid: set as `clone_op` sets names.
        set_valid_name(index, self.body_args[0].name_hint)
        return index, (offset,)

    def emit_copies(
        self,
        builder: Builder,
        base: SSAValue | int,
        carried: Sequence[SSAValue],
        count: int,
        *,
        first_is_original: bool = False,
    ) -> Sequence[SSAValue]:
        """
        One region: `count` copies of the body at `builder`, copy k at index
        `base + k*step`, the first seeded with `carried`; then `annotate`.
        With `first_is_original`, copy 0 is the original body, already in
        place (`base` and `carried` being its arguments). Returns the values
        the last copy yields. A rewriter's listeners are told of the tags.
        """
        copies: list[Sequence[Operation]] = []
        if first_is_original:
            copies.append(self.body_ops)
            carried = self.yielded
        for k in range(len(copies), count):
            index, offset = self.copy_index(base, k)
            ops, carried = self.copier.copy((index, *carried))
            insert_fresh(builder, (*offset, *ops))
            copies.append(ops)
        self.annotate(copies)
        if (
            isinstance(builder, PatternRewriter)
            and builder.operation_modification_handler
        ):
            # The copies were inserted before `annotate` tagged them.
            for ops in copies[first_is_original:]:
                for op in ops:
                    for nested in walk_ops(op):
                        builder.notify_op_modified(nested)
        return carried

    def emit_main_loop(self, ub: SSAValue, *, remainder_follows: bool) -> PipelineOp:
        """
        The `stages 1` loop from `lb` to `ub`, step `F*step`, body F copies:
        the original body (moved, not copied), then F-1 copies after it.
        """
        loop, rewriter = self.loop, self.rewriter
        terminator = self.body.block.last_op
        assert terminator is not None
        yielded = self.emit_copies(
            Builder(InsertPoint.before(terminator)),
            self.body_args[0],
            self.body_args[1:],
            self.factor,
            first_is_original=True,
        )
        terminator.operands = yielded
        rewriter.notify_op_modified(terminator)
        # Built directly: what `PipelineOp(...)` makes, without IRDL's
        # generic argument checks (the fields are the loop's own).
        main = create_op(
            PipelineOp,
            (self.lb, ub, self.constant(self.factor * self.step), *self.iter_args),
            [value.type for value in self.iter_args],
            pipeline_properties(1, loop.policy),
            loop.location,
            attributes=loop.attributes,
            regions=(rewriter.move_region_contents_to_new_regions(self.body),),
        )
        suffix = "_main" if remainder_follows else ""
        for new, old in zip(main.results, self.results, strict=True):
            new.name_hint = _with_suffix(old.name_hint, suffix)
        insert_fresh(rewriter, (main,))  # its region is the loop's body
        return main

    def unroll_static(self, lb: int, trip: int) -> None:
        """
        A main loop over whole groups of F iterations, then the rest: flattened
        copies, or a loop of them when there are two or more (`loop`).
        """
        if trip == 0:
            demote_to_scf_for(self.loop, self.rewriter)
            return
        main_iters, remainder = divmod(trip, self.factor)
        # main_end lies in [lb, ub): no overflow.
        main_end = lb + main_iters * self.factor * self.step
        results: Sequence[SSAValue] = self.iter_args
        if main_iters:
            # Without a remainder the main loop stops exactly where the original did.
            main_ub = self.constant(main_end) if remainder else self.ub
            results = self.emit_main_loop(
                main_ub, remainder_follows=remainder > 0
            ).results
        flattened = flattened_iterations(
            lb, trip, self.factor, self.step, self.remainder
        )
        if flattened:
            results = self.emit_copies(self.rewriter, main_end, results, len(flattened))
        elif remainder:
            results = self.emit_remainder_loop(self.constant(main_end), results)
        self.rewriter.replace(self.loop, (), results)

    def unroll_dynamic(self) -> None:
        """
        A main loop with a runtime end, then the rest: an `scf.if` cascade on
        the count of iterations left, or a loop from the main loop's end.
        The bounds may be any `index` values, so no op may overflow: the
        difference `ub - lb` (up to 2^64 - 1) is never computed. Instead, with
        m = F*step and K = (F-1)*step (both fit, as `factor * step` does):
        a group of F iterations runs when it starts below `ub - K`
        (`%unroll_group_limit`, clamped at the bottom of the range); the main
        loop ends at the first index of the loop at or past that limit,
        found from the residues mod m of the start and the limit
        (`offset_mod`), but not past `ub`; the remainder counts the
        iterations from there to `ub`, at most K apart.
        Every intermediate value lies in the `index` range
        (`docs/passes/lower-pipeline-loops.md` has the argument).
        """
        loop, rewriter, step, factor = self.loop, self.rewriter, self.step, self.factor
        span, last_copy = factor * step, (factor - 1) * step
        # An empty loop (lb >= ub) starts at ub, so that nothing remains.
        start = self.insert_named(
            rewriter, self.index_op(arith.MinSIOp, self.lb, self.ub), "unroll_start"
        )
        clamped = self.insert_named(
            rewriter,
            self.index_op(arith.MaxSIOp, self.ub, self.constant(INDEX_MIN + last_copy)),
            "unroll_ub_clamped",
        )
        limit = self.insert_named(
            rewriter,
            self.index_op(arith.SubiOp, clamped, self.constant(last_copy)),
            "unroll_group_limit",
        )
        room = self.insert_named(
            rewriter, self.index_op(arith.SubiOp, self.ub, limit), "unroll_room"
        )
        tail = self.insert_named(
            rewriter,
            self.index_op(arith.MinSIOp, self.offset_mod(start, limit, span), room),
            "unroll_tail",
        )
        main_end = self.insert_named(
            rewriter, self.index_op(arith.AddiOp, limit, tail), "unroll_main_end"
        )
        main = self.emit_main_loop(main_end, remainder_follows=True)
        if self.remainder == "loop":
            rewriter.replace(loop, (), self.emit_remainder_loop(main_end, main.results))
            return
        remainder = self.insert_named(
            rewriter,
            self.index_op(arith.SubiOp, room, tail),
            "unroll_rem" if step == 1 else "unroll_rem_span",
        )
        if step > 1:
            rounded = self.index_op(arith.AddiOp, remainder, self.constant(step - 1))
            remainder = self.insert_named(rewriter, rounded, "unroll_rem_rounded")
            ceil_div = self.index_op(arith.FloorDivSIOp, remainder, self.constant(step))
            remainder = self.insert_named(rewriter, ceil_div, "unroll_rem")
        results = self.emit_cascade(remainder, main_end, main.results)
        rewriter.replace(loop, (), results)

    def offset_mod(self, start: SSAValue, limit: SSAValue, modulus: int) -> SSAValue:
        """
        `(start - limit) mod modulus`, in [0, modulus), for any `index`
        values, without computing `start - limit`. The residues `remsi`
        leaves are in (-modulus, modulus), their difference in (-2*modulus,
        2*modulus): it fits when `modulus <= SHORT_MODULUS`, and then its
        residue plus `modulus`, in (0, 2*modulus), takes one more `remsi`
        (6 ops). A larger modulus takes each residue to [0, modulus) first,
        so that the difference is in (-modulus, modulus) (12 ops).
        """
        short = modulus <= SHORT_MODULUS
        offset = self.insert_named(
            self.rewriter,
            self.index_op(
                arith.SubiOp,
                self.residue(start, modulus, "unroll_start", short=short),
                self.residue(limit, modulus, "unroll_limit", short=short),
            ),
            "unroll_offset",
        )
        if not short:
            return self.floor_mod_small(offset, modulus, "unroll_offset")
        shifted = self.insert_named(
            self.rewriter,
            self.index_op(
                arith.AddiOp,
                self.residue(offset, modulus, "unroll_offset", short=True),
                self.constant(modulus),
            ),
            "unroll_offset_shifted",
        )
        return self.insert_named(
            self.rewriter,
            self.index_op(arith.RemSIOp, shifted, self.constant(modulus)),
            "unroll_offset_mod",
        )

    def residue(
        self, value: SSAValue, modulus: int, name: str, *, short: bool
    ) -> SSAValue:
        """
        `value remsi modulus` (`<name>_rem`), in (-modulus, modulus); unless
        `short`, then taken to [0, modulus) (`floor_mod_small`).
        """
        truncated = self.insert_named(
            self.rewriter,
            self.index_op(arith.RemSIOp, value, self.constant(modulus)),
            f"{name}_rem",
        )
        return truncated if short else self.floor_mod_small(truncated, modulus, name)

    def floor_mod_small(self, value: SSAValue, modulus: int, name: str) -> SSAValue:
        """
        `value` mod `modulus` for a `value` in (-modulus, modulus): `value`,
        plus `modulus` if negative (its floor quotient is -1 or 0).
        """
        rewriter = self.rewriter
        wraps = self.insert_named(
            rewriter,
            self.index_op(arith.FloorDivSIOp, value, self.constant(modulus)),
            f"{name}_wraps",
        )
        shift = self.insert_named(
            rewriter,
            self.index_op(arith.MuliOp, wraps, self.constant(modulus)),
            f"{name}_shift",
        )
        return self.insert_named(
            rewriter, self.index_op(arith.SubiOp, value, shift), f"{name}_mod"
        )

    def yield_op(self, values: Sequence[SSAValue]) -> scf.YieldOp:
        """`scf.yield` of `values` at the loop's location, built directly."""
        return create_op(scf.YieldOp, values, (), {}, self.loop.location)

    def emit_remainder_loop(
        self, start: SSAValue, carried: Sequence[SSAValue]
    ) -> Sequence[SSAValue]:
        """
        An `scf.for` from `start` to the loop's upper bound with its step,
        seeded with `carried`, whose body is one copy of the original body
        (one region); returns its results, named as the loop's.
        """
        block = Block(arg_types=[arg.type for arg in self.body_args])
        for new, old in zip(block.args, self.body_args, strict=True):
            new.name_hint = old.name_hint
        ops, yielded = self.copier.copy(block.args)
        block.add_ops(ops)
        block.add_op(self.located(scf.YieldOp(*yielded)))
        self.annotate([ops])
        remainder = self.located(
            scf.ForOp(start, self.ub, self.step_value, carried, Region(block))
        )
        for new, old in zip(remainder.results, self.results, strict=True):
            new.name_hint = old.name_hint
        insert_fresh(self.rewriter, (remainder,))
        return remainder.results

    def emit_cascade(
        self,
        remainder: SSAValue,
        base: SSAValue,
        main_results: Sequence[SSAValue],
    ) -> Sequence[SSAValue]:
        """
        `if rem == 1 {1 copy} else {if rem == 2 {2 copies} else {...}}`, built
        from the innermost branch (the most copies) out; returns its results.
        """
        result_types = [value.type for value in main_results]
        # The ops of the else branch of the next (outer) `scf.if`: the
        # innermost one yields the main loop's results unchanged.
        else_ops: list[Operation] = (
            [self.yield_op(main_results)] if main_results else []
        )
        for count in range(self.factor - 1, 0, -1):
            if count < self.factor - 1:
                else_ops.append(self.yield_op(else_ops[-1].results))
            then_block = Block()
            yielded = self.emit_copies(
                Builder(InsertPoint.at_end(then_block)), base, main_results, count
            )
            then_block.add_op(self.yield_op(yielded))
            condition = create_op(
                arith.CmpiOp,
                (remainder, self.constant(count)),
                (i1,),
                {"predicate": _EQ},
                self.loop.location,
            )
            condition.result.name_hint = f"unroll_rem_eq{count}"
            else_region = Region([Block(else_ops)] if else_ops else [])
            branch = create_op(
                scf.IfOp,
                (condition.result,),
                result_types,
                {},
                self.loop.location,
                regions=(Region(then_block), else_region),
            )
            suffix = f"_rem{count}" if count > 1 else ""
            for new, old in zip(branch.results, self.results, strict=True):
                new.name_hint = _with_suffix(old.name_hint, suffix)
            else_ops = [condition, branch]
        insert_fresh(self.rewriter, else_ops)
        return else_ops[-1].results
