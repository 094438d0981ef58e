"""
What the kernel mutations (`mutations.py`) look for and put in: regular
expressions for tokens, SSA names, types, shapes, spaces, integers, stages,
op names, properties and one-line generic ops, and the values that replace
them.
"""

from __future__ import annotations

import re

from pypto_dialect.dialect import PyPTO

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

EXTREME_INDEX_VALUES = (
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775806",
    "-9223372036854775807",
    "4611686018427387904",
    "-4611686018427387905",
)
"""The ends of `index` and values next to them or halfway (differences overflow)."""
HUGE_LITERALS = (
    "18446744073709551616",
    "18446744073709551617",
    "0x10000000000000001",
    "1000000000000000000000000000000",
    "9" * 4301,
    "0x" + "f" * 3571,
    "0x" + "f" * 3572,
)
"""
Past 64 bits, the 4,300-digit limit of Python's decimal conversion (a
decimal literal of 4,301 digits) and the largest hex literal the checked
lexer takes, and one digit more.
"""
EXTREME_INTEGERS = (
    "0",
    "-1",
    "1",
    "2",
    "64",
    "1000000",
    "-1000000",
    "4294967296",
    *EXTREME_INDEX_VALUES,
    *HUGE_LITERALS,
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
FLOAT_LITERAL = re.compile(r"(?<![\w.])-?\d+\.\d+(?:e[+-]?\d+)?(?= : f)")
"""A float constant's value, before its type."""
SPECIAL_FLOATS = (
    "0x7FC00000",
    "0xFFC00000",
    "0x7FC00001",
    "0x7F800001",
    "0xFFFFFFFF",
    "0x7F800000",
    "0xFF800000",
    "0x80000000",
    "1.0e+39",
)
"""NaNs (quiet, negative, with a payload, signaling), infinities, -0.0, an f32 overflow."""
WHILE_LIMITS = ("3", "0", "-1", "1000000000000", "9223372036854775807")
"""Where the inserted `scf.while` stops: soon, at once, or (for a run) never."""
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
"""The hints `bench.kernels.strategies` gives to `index` values (`%n` to bf16 casts too)."""
NEST_DEPTHS = (2, 3, 10, 30, 60, 100, 200, 1000)
