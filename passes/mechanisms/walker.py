"""
Driving a pass's rewrite pattern: xDSL's `PatternRewriteWalker`, or its
fast twin that visits only the ops the pattern can rewrite.

The walker visits every op of the module, about 2.5 us each in CPython (a
worklist entry, a rewriter reset, the pattern's call): on a pass that
spends 2.8 us per op, as `canonicalize-io-order` does on a block of loads
and stores, that doubles its time. A pass knows which ops its pattern
rewrites from its module-wide checks, so with the door's fast paths on
(`fast_paths_enabled`) `rewrite` applies the pattern to those ops only, in
the walker's order, each with a `PatternRewriter` that tells the walker's
listener what it tells the walker's own rewriter. With the public twins,
the walker walks.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriteWalker

from pypto_dialect.xdsl_internals import fast_paths_enabled


def rewrite(
    walker: PatternRewriteWalker, module: ModuleOp, ops: Iterable[Operation]
) -> None:
    """
    `walker.rewrite_module(module)`, for a walker that applies its pattern
    once per op (`apply_recursively=False`) and whose pattern rewrites only
    `ops`, given in the order the walker visits them, none removed by a
    rewrite at an earlier one. The fast twin visits `ops` alone.
    """
    if not fast_paths_enabled():
        walker.rewrite_module(module)
        return
    pattern, listener = walker.pattern, walker.listener
    for op in ops:
        rewriter = PatternRewriter(op)
        rewriter.extend_from_listener(listener)
        pattern.match_and_rewrite(op, rewriter)
