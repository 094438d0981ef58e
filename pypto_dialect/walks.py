"""Walks over the IR: nested ops in linear time, and the ops around an op."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain

from xdsl.ir import Operation
from xdsl.ir.core import OpT

from pypto_dialect.xdsl_internals import block_ops


def walk_ops(root: Operation, *, regions_first: bool = False) -> Iterator[Operation]:
    """
    `root` and the ops nested in it in the order of `Operation.walk`: program
    order, each op before the ops in its regions (after them with
    `regions_first`). Linear in the number of ops whatever the nesting:
    `Operation.walk` nests one generator per level, so it costs the depth per
    op, which is cubic in F on the `scf.if` cascade of a lowered dynamic
    pipeline. Ops are expanded when reached: materialize the walk before
    rewriting the IR.
    """
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            yield op
            continue
        if regions_first:
            stack.append((op, True))  # yielded once its regions are done
        else:
            yield op
        for region in reversed(op.regions):
            for block in reversed(region.blocks):
                stack.extend([(nested, False) for nested in reversed(block_ops(block))])


def ops_with_regions(root: Operation) -> list[Operation]:
    """
    The ops with regions in `root`, `root` included, each after those nested
    in it (the order of `walk_ops(root, regions_first=True)`, without the
    ops that have no region). Linear, and cheaper than filtering `walk_ops`:
    only the ops with regions go through the stack.
    """
    found: list[Operation] = []
    stack: list[tuple[Operation, bool]] = [(root, False)] if root.regions else []
    while stack:
        op, expanded = stack.pop()
        if expanded:
            found.append(op)
            continue
        stack.append((op, True))
        stack.extend(
            (nested, False)
            for region in reversed(op.regions)
            for block in reversed(region.blocks)
            for nested in reversed([n for n in block_ops(block) if n.regions])
        )
    return found


def outer_ops_first(root: Operation) -> list[Operation]:
    """
    The ops with regions in `root`, `root` included, in program order, each
    before those nested in it (the order of `walk_ops(root)`, without the ops
    that have no region). Linear, as `ops_with_regions`.
    """
    found: list[Operation] = []
    stack = [root] if root.regions else []
    while stack:
        op = stack.pop()
        found.append(op)
        stack.extend(
            nested
            for region in reversed(op.regions)
            for block in reversed(region.blocks)
            for nested in reversed([n for n in block_ops(block) if n.regions])
        )
    return found


def ancestors(op: Operation) -> Iterator[Operation]:
    """The ops that contain `op`, innermost first."""
    parent = op.parent_op()
    while parent is not None:
        yield parent
        parent = parent.parent_op()


def closest(op: Operation, kind: type[OpT]) -> OpT | None:
    """`op` itself if it is a `kind`, else its closest `kind` ancestor."""
    return next((o for o in chain((op,), ancestors(op)) if isinstance(o, kind)), None)
