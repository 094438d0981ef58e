"""
The door's fast paths make what their public twins make. `clone_op` makes what `Operation.clone` makes: the same printed op
(locations and name hints included) and sound use lists, on every op of the
examples and the lit inputs, and on regions whose values are used before
their definition or whose blocks branch to each other.
"""

from __future__ import annotations

import os
import subprocess
import sys
from importlib.metadata import version as xdsl_version
from io import StringIO
from pathlib import Path

import pytest
from corpus import parsed, sound_inputs
from ir_integrity import check_links
from xdsl.builder import Builder
from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    FileLineColLoc,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Operation, ParametrizedAttribute, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.printer import Printer
from xdsl.rewriter import InsertPoint

from pypto_dialect.walks import walk_ops
from pypto_dialect.xdsl_internals import (
    PUBLIC_ENV,
    TESTED_XDSL,
    BlockCopier,
    block_ops,
    clone_op,
    create_op,
    insert_fresh,
    new_attribute,
    replace_by,
    selects_fast_paths,
)

REGIONS = """
"test.graph"() ({
  "test.use"(%later, %outer) : (i32, i32) -> ()
  %later = "test.def"() {"tag" = 1 : i64} : () -> i32
}) : () -> ()
"test.cfg"() ({
^entry(%a: i32):
  "test.br"(%a) [^next] : (i32) -> ()
^next:
  %b = "test.def"() : () -> i32
  "test.br"(%b) [^entry] : (i32) -> ()
}) : () -> ()
"""


def _generic(op: Operation) -> str:
    """`op` in generic form with locations; values named by first appearance."""
    stream = StringIO()
    Printer(stream, print_generic_format=True, print_debuginfo=True).print_op(op)
    return stream.getvalue()


def _assert_clones_like_xdsl(module: ModuleOp) -> None:
    """Every op of `module`, cloned both ways, prints alike; the links hold."""
    ops = [op for op in walk_ops(module) if op is not module]
    for op in ops:
        ours_mapper: dict[SSAValue, SSAValue] = {}
        ours, theirs = clone_op(op, ours_mapper), op.clone()
        assert _generic(ours) == _generic(theirs), op.name
        assert [ours_mapper[result] for result in op.results] == list(ours.results)
        theirs.erase()
        # Inserted beside the original, the copy's uses are part of the module.
        block = op.parent_block()
        assert block is not None
        block.insert_op_before(ours, op)
    check_links(module)


SOUND_INPUTS = sound_inputs()


def test_the_corpus_is_not_empty():
    assert len(SOUND_INPUTS) > 50


@pytest.mark.parametrize(
    "module",
    [module for _, module in SOUND_INPUTS],
    ids=[name for name, _ in SOUND_INPUTS],
)
def test_copies_match_operation_clone(module: ModuleOp):
    _assert_clones_like_xdsl(module)


@pytest.mark.parametrize(
    "module",
    [module for _, module in SOUND_INPUTS],
    ids=[name for name, _ in SOUND_INPUTS],
)
def test_block_copies_match_clone_op(module: ModuleOp):
    """
    `BlockCopier` copies the ops of every block but its last as `clone_op`
    does, in turn, with one mapper; the outputs (the last op's operands) map
    alike; the copies, inserted before the last op, keep the links sound.
    """
    copy = module.clone()
    blocks = [
        block
        for op in walk_ops(copy)
        for region in op.regions
        for block in region.blocks
        if block.first_op is not block.last_op
    ]
    for block in blocks:
        *body, last = block_ops(block)
        outputs = tuple(last.operands)
        mapper: dict[SSAValue, SSAValue] = {}
        theirs = [clone_op(op, mapper) for op in body]
        ours, copied = BlockCopier(block.args, body, outputs).copy(block.args)
        assert [_generic(op) for op in ours] == [_generic(op) for op in theirs]
        # Their copy of a value, as ours: the result in the same place.
        ours_of: dict[SSAValue, SSAValue] = {
            theirs_result: ours_result
            for their_op, our_op in zip(theirs, ours, strict=True)
            for theirs_result, ours_result in zip(
                their_op.results, our_op.results, strict=True
            )
        }
        expected = (mapper.get(value, value) for value in outputs)
        assert copied == tuple(ours_of.get(value, value) for value in expected)
        for op in reversed(theirs):
            op.erase()
        block.insert_ops_before(ours, last)
    check_links(copy)


def _top_ops(module: ModuleOp) -> list[Operation]:
    return list(module.body.block.ops)


def test_regions_with_uses_before_definitions_and_successors():
    module = parsed(f'%outer = "test.def"() : () -> i32\n{REGIONS}')
    outer, graph, cfg = _top_ops(module)
    graph_copy, cfg_copy = clone_op(graph, {}), clone_op(cfg, {})
    use, definition = graph_copy.regions[0].block.ops
    assert tuple(use.operands) == (definition.results[0], outer.results[0])
    entry, following = cfg_copy.regions[0].blocks
    assert entry.ops.last is not None and following.ops.last is not None
    assert list(entry.ops.last.successors) == [following]
    assert list(following.ops.last.successors) == [entry]
    module.body.block.add_ops([graph_copy, cfg_copy])
    check_links(module)
    _assert_clones_like_xdsl(module)


def test_operands_go_through_the_mapper():
    module = parsed(
        '%outer = "test.def"() : () -> i32\n%other = "test.def"() : () -> i32\n'
        + REGIONS
    )
    outer, other, graph, _ = _top_ops(module)
    mapper: dict[SSAValue, SSAValue] = {outer.results[0]: other.results[0]}
    copy = clone_op(graph, mapper)
    use, definition = copy.regions[0].block.ops
    assert use.operands[1] is other.results[0]
    original_definition = graph.regions[0].block.ops.last
    assert original_definition is not None
    assert mapper[original_definition.results[0]] is definition.results[0]
    module.body.block.add_op(copy)
    check_links(module)


def _printed(module: ModuleOp) -> str:
    return _generic(module)


@pytest.mark.parametrize(
    "module",
    [module for _, module in SOUND_INPUTS],
    ids=[name for name, _ in SOUND_INPUTS],
)
def test_replace_by_into_the_same_class_changes_nothing(module: ModuleOp):
    copy = module.clone()
    before = _printed(copy)
    ops = [op for op in walk_ops(copy) if op is not copy and not op.successors]
    for op in ops:
        new = replace_by(op, type(op), dict(op.properties), PatternRewriter(op))
        assert op.parent is None
        assert new.parent is not None
    assert _printed(copy) == before
    check_links(copy)


def test_replace_by_takes_over_uses_and_regions():
    module = parsed(f'%outer = "test.def"() : () -> i32\n{REGIONS}')
    outer, graph, _ = _top_ops(module)
    (result,) = outer.results
    new = replace_by(graph, type(graph), {}, PatternRewriter(graph))
    use = new.regions[0].block.first_op
    assert use is not None and use.operands[1] is result
    assert new.regions[0].parent is new
    check_links(module)


_INDEX_ONE = IntegerAttr(1, IndexType())


@pytest.mark.parametrize(
    ("cls", "properties"),
    [
        (arith.ConstantOp, {"value": _INDEX_ONE}),
        (arith.AddiOp, {}),
        (arith.SubiOp, {}),
        (
            arith.MuliOp,
            {
                "overflowFlags": arith.IntegerOverflowAttr(
                    [arith.IntegerOverflowFlag.NSW]
                )
            },
        ),
    ],
)
def test_create_op_makes_what_create_makes(
    cls: type[Operation], properties: dict[str, Attribute]
):
    module = parsed('%a, %b = "test.def"() : () -> (index, index)')
    operands = tuple(_top_ops(module)[0].results) if cls is not arith.ConstantOp else ()
    location = FileLineColLoc(StringAttr("k.py"), IntAttr(3), IntAttr(4))
    ours = create_op(cls, operands, (IndexType(),), dict(properties), location)
    theirs = cls.create(
        operands=operands,
        result_types=[IndexType()],
        properties=properties,
        location=location,
    )
    assert _generic(ours) == _generic(theirs)
    assert ours.properties.keys() == theirs.properties.keys()
    module.body.block.add_op(ours)
    theirs.erase()
    check_links(module)


@pytest.mark.parametrize(
    ("cls", "parameters"),
    [
        (FileLineColLoc, (StringAttr("k.py"), IntAttr(3), IntAttr(4))),
        (IndexType, ()),
    ],
)
def test_new_attribute_makes_what_the_class_makes(
    cls: type[ParametrizedAttribute], parameters: tuple[Attribute, ...]
):
    ours, theirs = new_attribute(cls, *parameters), cls(*parameters)
    assert type(ours) is type(theirs)
    assert ours == theirs and hash(ours) == hash(theirs)
    assert ours.parameters == theirs.parameters
    assert str(ours) == str(theirs)


@pytest.mark.parametrize("where", ["start", "middle", "end", "empty"])
def test_insert_fresh_links_like_insert(where: str):
    module = parsed(
        '"test.first"() : () -> ()\n"test.second"() : () -> ()\n'
        '"test.region"() ({\n^empty:\n}) : () -> ()'
    )
    first, second, holder = _top_ops(module)
    block = module.body.block
    point = {
        "start": InsertPoint.before(first),
        "middle": InsertPoint.before(second),
        "end": InsertPoint.at_end(block),
        "empty": InsertPoint.at_end(holder.regions[0].block),
    }[where]
    rewriter = PatternRewriter(first)
    inserted: list[Operation] = []
    rewriter.operation_insertion_handler.append(inserted.append)
    new = [first.clone(), second.clone()]
    insert_fresh(Builder(point), [])
    insert_fresh(rewriter if where == "start" else Builder(point), new)
    if where != "start":
        insert_fresh(Builder(point), [])
    else:
        assert rewriter.has_done_action and inserted == new
    expected = {
        "start": [*new, first, second, holder],
        "middle": [first, *new, second, holder],
        "end": [first, second, holder, *new],
        "empty": [first, second, holder],
    }[where]
    assert list(block.ops) == expected
    if where == "empty":
        assert list(holder.regions[0].block.ops) == new
    check_links(module)


def test_the_public_twins_are_chosen_by_the_variable_or_an_untested_xdsl():
    tested = sorted(TESTED_XDSL)[0]
    assert selects_fast_paths({}, tested)
    assert selects_fast_paths({PUBLIC_ENV: "0"}, tested)
    assert not selects_fast_paths({PUBLIC_ENV: "1"}, tested)
    assert not selects_fast_paths({}, "0.74.0")
    assert not selects_fast_paths({}, "0.76.0")


def test_the_mode_is_the_environment_s_in_a_fresh_process():
    code = "from pypto_dialect import fast_paths_enabled; print(fast_paths_enabled())"
    for setting, expected in [
        ("1", "False"),
        ("0", str(xdsl_version("xdsl") in TESTED_XDSL)),
    ]:
        finished = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, PUBLIC_ENV: setting},
        )
        assert finished.stdout.strip() == expected


def test_only_the_door_reaches_xdsl_s_private_fields():
    """No other library module silences pyright's `reportPrivateUsage`."""
    root = Path(__file__).parents[2]
    door = root / "pypto_dialect" / "xdsl_internals.py"
    silenced = [
        str(path.relative_to(root))
        for package in ("pypto_dialect", "passes")
        for path in sorted((root / package).rglob("*.py"))
        if path != door and "reportPrivateUsage" in path.read_text(encoding="utf-8")
    ]
    assert silenced == []
