"""
The names of the Python constructs PyPTO has no use for, as the frontend's
`unsupported PyPTO construct '...'` errors word them (`construct_name`).
"""

from __future__ import annotations

import ast

from pypto_dialect.dsl.annotations import dotted
from pypto_dialect.dsl.tables import OPERATOR_TEXT

_CONSTRUCTS: dict[type[ast.AST], str] = {
    ast.While: "while",
    ast.With: "with",
    ast.AsyncWith: "async with",
    ast.AsyncFor: "async for",
    ast.Try: "try",
    ast.Raise: "raise",
    ast.Assert: "assert",
    ast.Delete: "del",
    ast.Global: "global",
    ast.Nonlocal: "nonlocal",
    ast.Import: "import",
    ast.ImportFrom: "import",
    ast.FunctionDef: "def",
    ast.AsyncFunctionDef: "async def",
    ast.ClassDef: "class",
    ast.Break: "break",
    ast.Continue: "continue",
    ast.Match: "match",
    ast.Lambda: "lambda",
    ast.IfExp: "conditional expression",
    ast.BoolOp: "and/or",
    ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression",
    ast.Await: "await",
    ast.Yield: "yield",
    ast.YieldFrom: "yield from",
    ast.JoinedStr: "f-string",
    ast.NamedExpr: ":=",
    ast.Starred: "*",
    ast.Slice: "slice",
    ast.Subscript: "subscript",
    ast.Dict: "dict",
    ast.Set: "set",
    ast.List: "list",
    ast.Tuple: "tuple",
    ast.Constant: "constant",
    ast.Invert: "~",
    ast.Not: "not",
    ast.Pow: "**",
    ast.MatMult: "@",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.BitAnd: "&",
    ast.BitOr: "|",
    ast.BitXor: "^",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.In: "in",
    ast.NotIn: "not in",
}


def construct_name(node: ast.AST) -> str:
    """How `unsupported PyPTO construct '...'` names `node`."""
    if isinstance(node, ast.Call):
        return dotted(node.func)
    if isinstance(node, ast.Attribute):
        return dotted(node)
    if isinstance(node, ast.BinOp | ast.UnaryOp):
        return f"operator {OPERATOR_TEXT.get(type(node.op)) or construct_name(node.op)}"
    return _CONSTRUCTS.get(type(node), type(node).__name__)
