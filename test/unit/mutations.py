"""
Hypothesis strategies for malformed pypto kernels: valid kernels, mutated.

`mutants()` draws a kernel from `kernel_strategies.kernels()`, in its custom
or its generic printed form, and applies one to three mutations from
`MUTATIONS` (`GENERIC_MUTATIONS` for the generic form), and in a third of
the mutants one of `SYNTAX_MUTATIONS` last. Each mutation is a small
function `(text, draw) -> text`:
token edits (delete, duplicate, swap, replace), line edits (delete,
duplicate, move), SSA names replaced by other or undefined ones, types,
shapes and memory spaces replaced, integers replaced by extreme values,
`stages` changed, operands, results and properties of generic ops dropped,
added or given wrong values, discardable attributes added, ops renamed,
truncation, random characters, and deep nests of loops, attributes and types.

Many mutations keep the text parseable (values of the same type swapped,
lines moved, properties changed, extreme constants), so that a good share
of the mutants reach the verifier and the passes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from io import StringIO
from typing import TypeVar

from hypothesis import event
from hypothesis import strategies as st
from kernel_strategies import VEC_TENSOR, kernels
from xdsl.parser import Parser
from xdsl.printer import Printer

from pypto_dialect.context import pypto_context
from pypto_dialect.dialect import PyPTO

Mutation = Callable[[str, st.DrawFn], str]

_CONTEXT = pypto_context()

_T = TypeVar("_T")

TOKEN = re.compile(
    r"""
    "(?:[^"\\\n]|\\.)*"                   # a string
    | [%^@#!][\w.$-]*                     # an SSA name, block, symbol, alias
    | -?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?    # a number
    | [A-Za-z_][\w.$]*                    # a keyword or identifier
    | ->
    | \S                                  # punctuation
    """,
    re.VERBOSE,
)
SSA_NAME = re.compile(r"%[\w.$-]+")
RESULTS = re.compile(r" *(?:%[\w.$-]+, )*")
"""What precedes a result's name on its line."""
TYPE = re.compile(
    r"!pypto\.(?:tile|tensor)<[^<>]*>"
    r"|(?<![%\w.!#])(?:index|i1|i8|i16|i32|i64|f16|bf16|f32|f64)(?![\w.])"
)
SHAPE = re.compile(r"(?<=<)\d+(?:x\d+)*(?=x[a-z])")
SPACE = re.compile(r"(?<=, )(?:vec|mat|left|right|acc|bias)(?=>)")
INTEGER = re.compile(r"(?<![\w%^@#!.-])-?\d+(?![\w.])")
STAGES = re.compile(r"(?<=stages )\d+|(?<=stages = )\d+ : i64")
OP_NAME = re.compile(r"(?<![\w%@#!.$])(?:pypto|arith|scf|func|builtin)\.[\w.]+")
PROPERTIES = re.compile(r"<\{(.*?)\}>")
GENERIC_OP = re.compile(
    r"^(?P<indent> *)(?P<results>(?:%[\w.$-]+(?:, %[\w.$-]+)* = )?)"
    r'(?P<name>"[\w.]+")\((?P<operands>[^()]*)\)(?P<middle>.*) : '
    r"\((?P<types>.*)\) -> (?P<result_types>.*)$",
    re.MULTILINE,
)
"""A one-line generic op: its results, name, operands, operand and result types."""

EXTREME_INTEGERS = (
    "0",
    "-1",
    "1",
    "2",
    "64",
    "1000000",
    "-1000000",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551616",
    "1000000000000000000000000000000",
)
STAGES_VALUES = ("2", "3", "8", "16", "128", "1000000", "64", *EXTREME_INTEGERS)
"""
Mostly more stages than the kernels have (the lowering copies more), then
ones the lowering rejects (too many copies), 64 (2,080 copies of a body with
dynamic bounds: allowed, and slow), the extremes.
"""
TYPES = (
    "index",
    "i1",
    "i32",
    "i64",
    "f16",
    "bf16",
    "f32",
    "f64",
    "none",
    "i1099511627776",
    "tensor<4xf32>",
    "memref<4x8xf32>",
    "() -> ()",
    "!pypto.tile<4x8xf32, vec>",
    "!pypto.tile<8x4xf32, vec>",
    "!pypto.tile<4x8xbf16, vec>",
    "!pypto.tile<4x1xf32, vec>",
    "!pypto.tile<4x8xf32, mat>",
    "!pypto.tile<4x8xf32, acc>",
    "!pypto.tile<4x8xbf16, left>",
    "!pypto.tile<8x8xbf16, right>",
    "!pypto.tile<1xi8, bias>",
    "!pypto.tile<4x8xi7, vec>",
    "!pypto.tile<0x8xf32, vec>",
    "!pypto.tile<?x8xf32, vec>",
    "!pypto.tile<4x8x!pypto.tile<1xf32, vec>, vec>",
    "!pypto.tensor<1024x8xf32>",
    "!pypto.tensor<8x8xbf16>",
    "!pypto.tensor<4xf32>",
    "!pypto.tensor<9223372036854775807x9223372036854775807xf32>",
    "!pypto.tile<4x8xf32>",
    "!pypto.tile<4x8xf32, vec, vec>",
    "!pypto.unknown",
)
SHAPES = (
    "4",
    "8x4",
    "4x8x2",
    "1x1",
    "0x8",
    "4x0",
    "2147483648x8",
    "9223372036854775807x8",
    "18446744073709551616x8",
    "4x4x4x4x4x4x4x4",
)
SPACES = ("vec", "mat", "left", "right", "acc", "bias", "VEC", "gm", "")
MEMBERSHIPS = (
    "#pypto.membership<0:0>",
    "#pypto.membership<0:3, 1:1>",
    "#pypto.membership<1:0, 0:1, 1:0>",
    "#pypto.membership<>",
    "#pypto.membership<-1:0>",
    "#pypto.membership<0:-1>",
    "#pypto.membership<0>",
    "#pypto.membership<0:0:0>",
    "#pypto.membership<9223372036854775807:0>",
    "#pypto.membership<0:18446744073709551616>",
    "#pypto.membership<true:0>",
)
WRONG_VALUES = (
    *MEMBERSHIPS,
    "3 : i64",
    "0 : i64",
    "-1 : i64",
    "1000000 : i64",
    "9223372036854775807 : i64",
    "1 : i32",
    "0 : index",
    "1.5 : f32",
    "true",
    "false",
    "unit",
    '"kernel"',
    '""',
    "@kernel",
    "@undefined",
    "[]",
    "[1, 2]",
    "{}",
    "index",
    "i32",
    "() -> ()",
    "(index) -> index",
    "(index, index) -> (index, f32)",
    "#pypto.memory_space<vec>",
    "#arith.overflow<none>",
    "#arith.overflow<nsw, nuw>",
    "dense<1> : tensor<2xi32>",
)
ATTRIBUTE_NAMES = (
    "pypto.pipeline_membership",
    "stages",
    "sym_name",
    "function_type",
    "value",
    "overlap_stores",
    "double_buffer_acc",
    "overflowFlags",
    "predicate",
    "operandSegmentSizes",
)
OP_NAMES = (
    *(op.name for op in PyPTO.operations),
    "arith.constant",
    "arith.addi",
    "arith.muli",
    "arith.cmpi",
    "arith.addf",
    "scf.if",
    "scf.for",
    "scf.yield",
    "func.func",
    "func.call",
    "func.return",
    "builtin.module",
    "builtin.unrealized_conversion_cast",
    "test.unregistered",
)
INSERTIONS = (
    "\x00",
    "\ufeff",
    "\u202e",
    "é",
    "\U0001f642",
    "\\",
    '"',
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "[",
    "]",
    ",",
    ":",
    "=",
    "%",
    "#",
    "!",
    "@",
    "^bb1:",
    "// ",
    "-> ",
    "\n",
)
INDEX_HINTS = frozenset({"%c", "%s", "%o", "%i", "%ia", "%iv", "%ub", "%n"})
"""The hints `kernel_strategies` gives to `index` values (`%n` to bf16 casts too)."""
NEST_DEPTHS = (2, 3, 10, 30, 60, 100, 200, 1000)


@dataclass(frozen=True)
class Mutant:
    """A mutated kernel, the names of the mutations applied, and the source form."""

    text: str
    mutations: tuple[str, ...]
    generic: bool


def pick(draw: st.DrawFn, options: Sequence[_T]) -> _T:
    """One of `options` (not empty); shrinks to the first."""
    return options[draw(st.integers(0, len(options) - 1))]


def _mostly(draw: st.DrawFn) -> bool:
    """True three times in four; shrinks to False."""
    return draw(st.integers(0, 3)) > 0


def replace_match(
    text: str,
    draw: st.DrawFn,
    pattern: re.Pattern[str],
    new: str,
    *,
    everywhere: bool = False,
) -> str:
    """
    `text` with one match of `pattern` (if any) replaced by `new`, or (with
    `everywhere`) every match with the same text as the one drawn.
    """
    matches = list(pattern.finditer(text))
    if not matches:
        return text
    chosen = pick(draw, matches)
    replaced = (
        [m for m in matches if m.group() == chosen.group()] if everywhere else [chosen]
    )
    for match in reversed(replaced):
        text = text[: match.start()] + new + text[match.end() :]
    return text


def split_top_level(text: str) -> list[str]:
    """`text` split at the commas outside brackets, each part stripped."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "<([{":
            depth += 1
        elif char in ">)]}" and text[index - 1 : index + 1] != "->":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index].strip())
            start = index + 1
    tail = text[start:].strip()
    return [*parts, tail] if tail or parts else parts


# --------------------------------------------------------------------------- #
# Token and line edits
# --------------------------------------------------------------------------- #


def delete_token(text: str, draw: st.DrawFn) -> str:
    return replace_match(text, draw, TOKEN, "")


def duplicate_token(text: str, draw: st.DrawFn) -> str:
    matches = list(TOKEN.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    return text[: match.end()] + " " + match.group() + text[match.end() :]


def swap_tokens(text: str, draw: st.DrawFn) -> str:
    matches = list(TOKEN.finditer(text))
    if len(matches) < 2:
        return text
    first = draw(st.integers(0, len(matches) - 2))
    second = first + 1 if draw(st.booleans()) else pick(draw, range(len(matches)))
    a, b = sorted((matches[first], matches[second]), key=lambda m: m.start())
    if a.start() == b.start():
        return text
    return (
        text[: a.start()]
        + b.group()
        + text[a.end() : b.start()]
        + a.group()
        + text[b.end() :]
    )


def replace_token(text: str, draw: st.DrawFn) -> str:
    tokens = [match.group() for match in TOKEN.finditer(text)]
    if not tokens:
        return text
    return replace_match(text, draw, TOKEN, pick(draw, tokens))


def delete_line(text: str, draw: st.DrawFn) -> str:
    lines = text.splitlines(keepends=True)
    del lines[pick(draw, range(len(lines)))]
    return "".join(lines)


def duplicate_line(text: str, draw: st.DrawFn) -> str:
    lines = text.splitlines(keepends=True)
    index = pick(draw, range(len(lines)))
    lines.insert(index, lines[index])
    return "".join(lines)


def move_line(text: str, draw: st.DrawFn) -> str:
    """Move a line elsewhere: a use before its definition, an op out of its block."""
    lines = text.splitlines(keepends=True)
    line = lines.pop(pick(draw, range(len(lines))))
    lines.insert(pick(draw, range(len(lines) + 1)), line)
    return "".join(lines)


def truncate(text: str, draw: st.DrawFn) -> str:
    return text[: draw(st.integers(0, len(text)))]


def insert_characters(text: str, draw: st.DrawFn) -> str:
    position = draw(st.integers(0, len(text)))
    if draw(st.booleans()):
        inserted = pick(draw, INSERTIONS)
    else:
        inserted = draw(st.text(min_size=1, max_size=8))
    return text[:position] + inserted + text[position:]


# --------------------------------------------------------------------------- #
# Names, types and values
# --------------------------------------------------------------------------- #


def _hint(name: str) -> str:
    """The generator's name hint of a value (`%t12` -> `t`), which mostly tells its type."""
    hint = name.rstrip("0123456789")
    return "index" if hint in INDEX_HINTS and hint != name else hint


def _is_use(text: str, match: re.Match[str]) -> bool:
    """Whether an SSA name is an operand, not a result, argument or iter_arg."""
    after = text[match.end() : match.end() + 2]
    line_start = text.rfind("\n", 0, match.start()) + 1
    before = text[line_start : match.start()]
    return not (after.startswith(":") or after == " =" or RESULTS.fullmatch(before))


def replace_ssa_name(text: str, draw: st.DrawFn) -> str:
    """
    An SSA name replaced by another one of the kernel (often one with the
    same hint, so the types match: a value of another iteration, a loop's own
    induction variable, a value defined later), or by an undefined one.
    """
    matches = [match for match in SSA_NAME.finditer(text) if _is_use(text, match)]
    if not matches:
        return text
    match = pick(draw, matches)
    names = sorted(set(SSA_NAME.findall(text)))
    alike = [name for name in names if _hint(name) == _hint(match.group())]
    if draw(st.booleans()):
        new = pick(draw, [*names, "%undefined", "%0", "%", "%x#1"])
    else:
        new = pick(draw, alike)
    return text[: match.start()] + new + text[match.end() :]


def replace_type(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, TYPES)
    return replace_match(text, draw, TYPE, new, everywhere=_mostly(draw))


def replace_shape(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, SHAPES)
    return replace_match(text, draw, SHAPE, new, everywhere=_mostly(draw))


def replace_memory_space(text: str, draw: st.DrawFn) -> str:
    new = pick(draw, SPACES)
    return replace_match(text, draw, SPACE, new, everywhere=_mostly(draw))


def replace_integer(text: str, draw: st.DrawFn) -> str:
    """An integer literal (constants, stages, memberships) replaced by an extreme one."""
    new = pick(draw, EXTREME_INTEGERS)
    return replace_match(text, draw, INTEGER, new, everywhere=_mostly(draw))


def replace_stages(text: str, draw: st.DrawFn) -> str:
    stages = pick(draw, STAGES_VALUES)
    matches = list(STAGES.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    new = stages + (" : i64" if match.group().endswith("i64") else "")
    return text[: match.start()] + new + text[match.end() :]


def rename_op(text: str, draw: st.DrawFn) -> str:
    """An op name replaced by another: same syntax in generic form, any operands."""
    return replace_match(text, draw, OP_NAME, pick(draw, OP_NAMES))


# --------------------------------------------------------------------------- #
# Attributes and properties
# --------------------------------------------------------------------------- #


def add_attribute(text: str, draw: st.DrawFn) -> str:
    """A discardable attribute (a membership, mostly) added to an op."""
    lines = text.splitlines(keepends=True)
    candidates = [
        index
        for index, line in enumerate(lines)
        if " : " in line and " arith.constant " not in line
    ]
    if not candidates:
        return text
    index = pick(draw, candidates)
    line = lines[index]
    name = pick(draw, ATTRIBUTE_NAMES)
    value = pick(draw, MEMBERSHIPS if name == ATTRIBUTE_NAMES[0] else WRONG_VALUES)
    # The attribute dictionary comes before the last ` : (` of a generic op,
    # before the first ` : ` of a custom one.
    at = line.rfind(" : (") if '"' in line else line.find(" : ")
    at = line.find(" : ") if at < 0 else at
    lines[index] = f"{line[:at]} {{{name} = {value}}}{line[at:]}"
    return "".join(lines)


def mutate_property(text: str, draw: st.DrawFn) -> str:
    """A property of a generic op dropped, duplicated, renamed or given a wrong value."""
    matches = list(PROPERTIES.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    entries = split_top_level(match.group(1))
    index = pick(draw, range(len(entries))) if entries else 0
    kind = draw(st.integers(0, 4))
    if kind == 0 and entries:
        del entries[index]
    elif kind == 1 and entries:
        entries.insert(index, entries[index])
    elif kind == 2 and entries:
        key = entries[index].split(" = ", 1)[0]
        entries[index] = f"{key} = {pick(draw, WRONG_VALUES)}"
    elif kind == 3 and entries:
        value = entries[index].split(" = ", 1)[-1]
        entries[index] = f"{pick(draw, ATTRIBUTE_NAMES)} = {value}"
    else:
        entries.insert(
            index, f"{pick(draw, ATTRIBUTE_NAMES)} = {pick(draw, WRONG_VALUES)}"
        )
    return (
        text[: match.start()] + "<{" + ", ".join(entries) + "}>" + text[match.end() :]
    )


# --------------------------------------------------------------------------- #
# Operands and results of generic ops
# --------------------------------------------------------------------------- #


def change_operand_count(text: str, draw: st.DrawFn) -> str:
    """
    A generic op with an operand dropped or repeated, in its operand list
    and (mostly) its type list too, so that the text still parses.
    """
    matches = list(GENERIC_OP.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    operands = split_top_level(match["operands"])
    types = split_top_level(match["types"])
    if operands:
        index = pick(draw, range(len(operands)))
        if draw(st.booleans()):
            del operands[index]
            if draw(st.integers(0, 3)) and index < len(types):
                del types[index]
        else:
            operands.insert(index, operands[index])
            if draw(st.integers(0, 3)) and index < len(types):
                types.insert(index, types[index])
    else:
        operands, types = ["%x"], [VEC_TENSOR]
    line = (
        f"{match['indent']}{match['results']}{match['name']}({', '.join(operands)})"
        f"{match['middle']} : ({', '.join(types)}) -> {match['result_types']}"
    )
    return text[: match.start()] + line + text[match.end() :]


def change_result_count(text: str, draw: st.DrawFn) -> str:
    """A generic op with a result added, or its results dropped."""
    matches = list(GENERIC_OP.finditer(text))
    if not matches:
        return text
    match = pick(draw, matches)
    results, result_types = match["results"], match["result_types"]
    if results and draw(st.booleans()):
        results, result_types = "", "()"
    else:
        extra = pick(draw, TYPES)
        types = split_top_level(result_types.removeprefix("(").removesuffix(")"))
        results = ", ".join([*SSA_NAME.findall(results), "%extra"]) + " = "
        result_types = f"({', '.join([*types, extra])})"
    line = (
        f"{match['indent']}{results}{match['name']}({match['operands']})"
        f"{match['middle']} : ({match['types']}) -> {result_types}"
    )
    return text[: match.start()] + line + text[match.end() :]


# --------------------------------------------------------------------------- #
# Deep nests
# --------------------------------------------------------------------------- #


def _insert_before_first_constant(text: str, inserted: str) -> str:
    """`inserted` as lines before the first constant of the kernel (in its entry block)."""
    lines = text.splitlines(keepends=True)
    index = next(
        (index for index, line in enumerate(lines) if "arith.constant" in line), 0
    )
    lines.insert(index, inserted)
    return "".join(lines)


def nest_loops(text: str, draw: st.DrawFn) -> str:
    """A deep nest of pipelines or `scf.if`s at the start of the kernel."""
    depth = pick(draw, NEST_DEPTHS)
    if draw(st.booleans()):
        stages = pick(draw, ("1", "2", "4"))
        trip = pick(draw, ("%nest_one", "%nest_two"))
        openings = [
            f"pypto.pipeline %nest_i{level} = %nest_zero to {trip} step %nest_one "
            f"stages {stages} {{\n"
            for level in range(depth)
        ]
    else:
        openings = ["scf.if %nest_true {\n"] * depth
    nest = (
        "%nest_zero = arith.constant 0 : index\n"
        "%nest_one = arith.constant 1 : index\n"
        "%nest_two = arith.constant 2 : index\n"
        "%nest_true = arith.constant true\n" + "".join(openings) + "}\n" * depth
    )
    return _insert_before_first_constant(text, nest)


def deep_attribute(text: str, draw: st.DrawFn) -> str:
    """A deeply nested array attribute, or a deeply nested type, in the kernel."""
    depth = pick(draw, NEST_DEPTHS)
    if draw(st.booleans()):
        attribute = "[" * depth + "0" + "]" * depth
        op = f'"arith.constant"() <{{value = 0 : index}}> {{deep = {attribute}}} : () -> index\n'
        return _insert_before_first_constant(text, f"%deep = {op}")
    return replace_match(text, draw, TYPE, "tuple<" * depth + "f32" + ">" * depth)


MUTATIONS: tuple[Mutation, ...] = (
    replace_integer,
    replace_stages,
    add_attribute,
    replace_ssa_name,
    move_line,
    replace_type,
    replace_shape,
    replace_memory_space,
    rename_op,
    nest_loops,
    deep_attribute,
)
"""
The mutations of either form that often keep the text parseable; hypothesis
draws the first ones more often.
"""
GENERIC_MUTATIONS: tuple[Mutation, ...] = (
    mutate_property,
    change_operand_count,
    change_result_count,
    *MUTATIONS,
)
"""... and of the generic form: also of properties, operand and result lists."""
SYNTAX_MUTATIONS: tuple[Mutation, ...] = (
    delete_token,
    duplicate_token,
    swap_tokens,
    replace_token,
    delete_line,
    duplicate_line,
    truncate,
    insert_characters,
)
"""The mutations that mostly make a parse error: one at most, in a third of the mutants."""


def generic_form(text: str) -> str:
    """A valid kernel printed in generic form."""
    module = Parser(_CONTEXT, text).parse_module()
    stream = StringIO()
    Printer(stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


@st.composite
def mutants(draw: st.DrawFn, max_mutations: int = 3, max_stages: int = 4) -> Mutant:
    """
    A kernel of `kernels(max_stages)` with 1..`max_mutations` mutations, and
    sometimes one more of `SYNTAX_MUTATIONS`.
    """
    kernel = draw(kernels(max_stages=max_stages))
    generic = draw(st.booleans())
    text = generic_form(kernel.text) if generic else kernel.text
    chosen = [
        draw(st.sampled_from(GENERIC_MUTATIONS if generic else MUTATIONS))
        for _ in range(draw(st.integers(1, max_mutations)))
    ]
    if draw(st.integers(0, 2)) == 2:
        chosen.append(draw(st.sampled_from(SYNTAX_MUTATIONS)))
    for mutation in chosen:
        text = mutation(text, draw)
        event(f"mutation: {mutation.__name__}")
    return Mutant(text, tuple(mutation.__name__ for mutation in chosen), generic)
