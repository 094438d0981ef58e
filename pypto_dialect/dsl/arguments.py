"""
The arguments of a PyPTO call, read one by one, so that whatever nothing
read is an error; and `attrs={"pipeline_membership": ...}`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from xdsl.ir import Operation

from pypto_dialect.attributes import MEMBERSHIP_ATTR_NAME, MembershipAttr
from pypto_dialect.dsl.source import SourceFile
from pypto_dialect.dsl.tables import IGNORED_DEFAULTS, MEMBERSHIP_KEY
from pypto_dialect.numbers import INDEX_MAX

_NUMBER = re.compile("[0-9]{1,19}")
"""A group or stage: few enough digits to read (then its range is checked)."""


@dataclass
class CallArguments:
    """The arguments of the call `node` (shown as `name(...)`), consumed as they are read."""

    source: SourceFile
    node: ast.Call
    name: str
    positional: list[ast.expr]
    keywords: dict[str, ast.keyword]

    @classmethod
    def of(cls, source: SourceFile, node: ast.Call, name: str) -> CallArguments:
        keywords: dict[str, ast.keyword] = {}
        for keyword in node.keywords:
            if keyword.arg is None:
                source.fail(keyword, f"{name}(...) does not take **arguments")
            if keyword.arg in keywords:
                source.fail(keyword, f"keyword argument '{keyword.arg}' is given twice")
            keywords[keyword.arg] = keyword
        for argument in node.args:
            if isinstance(argument, ast.Starred):
                source.fail(argument, f"{name}(...) does not take *arguments")
        return cls(source, node, name, list(node.args), keywords)

    def expect(self, least: int, most: int) -> None:
        """Check the number of positional arguments."""
        count = len(self.positional)
        if least <= count <= most:
            return
        expected = str(least) if least == most else f"{least} to {most}"
        self.source.fail(
            self.node,
            f"{self.name}(...) takes {expected} positional arguments, got {count}",
        )

    def argument(self, index: int) -> ast.expr | None:
        """Positional argument `index`, None if absent."""
        return self.positional[index] if index < len(self.positional) else None

    def keyword(self, name: str) -> ast.expr | None:
        """The value of keyword `name` (consumed), None if absent."""
        keyword = self.keywords.pop(name, None)
        return None if keyword is None else keyword.value

    def required_keyword(self, name: str) -> ast.expr:
        value = self.keyword(name)
        if value is None:
            self.source.fail(self.node, f"{self.name}(...) needs {name}=")
        return value

    def membership(self) -> MembershipAttr | None:
        """`attrs={"pipeline_membership": "g:s,g:s"}`, if given."""
        node = self.keyword("attrs")
        return None if node is None else parse_membership(self.source, node)

    def finish(self) -> None:
        """Reject the keywords nothing read, unless they hold an ignored default."""
        for name, keyword in self.keywords.items():
            if name not in IGNORED_DEFAULTS:
                self.source.fail(
                    keyword,
                    f"unsupported keyword argument '{name}' of {self.name}(...)",
                )
            default = IGNORED_DEFAULTS[name]
            value = keyword.value
            if not (
                isinstance(value, ast.Constant)
                and type(value.value) is type(default)
                and value.value == default
            ):
                self.source.fail(
                    keyword,
                    f"{self.name}(...): only the default {name}={default!r} is supported",
                )


def parse_membership(source: SourceFile, node: ast.expr) -> MembershipAttr:
    """The membership of `attrs={"pipeline_membership": "0:1,1:0"}`."""
    if not isinstance(node, ast.Dict) or len(node.keys) != 1 or node.keys[0] is None:
        source.fail(node, f'expected attrs={{"{MEMBERSHIP_KEY}": "group:stage,..."}}')
    key, value = node.keys[0], node.values[0]
    if not (isinstance(key, ast.Constant) and key.value == MEMBERSHIP_KEY):
        source.fail(
            key, f"unsupported attribute {ast.unparse(key)} (only '{MEMBERSHIP_KEY}')"
        )
    text = value.value if isinstance(value, ast.Constant) else None
    if not isinstance(text, str):
        source.fail(value, "expected the membership as a string 'group:stage,...'")
    pairs: list[tuple[int, int]] = []
    for item in text.split(","):
        group, colon, stage = (part.strip() for part in item.partition(":"))
        numbers = (group, stage)
        if not (
            colon
            and all(_NUMBER.fullmatch(number) for number in numbers)
            and all(int(number) <= INDEX_MAX for number in numbers)
        ):
            source.fail(
                value,
                f"malformed {MEMBERSHIP_KEY} {text!r}: expected 'group:stage' pairs "
                f"of integers from 0 to {INDEX_MAX}, separated by commas",
            )
        pairs.append((int(group), int(stage)))
    return MembershipAttr(pairs)


def membership_text(membership: MembershipAttr) -> str:
    """`attrs={...}` for `membership`, as the target prints it."""
    pairs = ",".join(f"{group}:{stage}" for group, stage in membership.pairs)
    return f'attrs={{"{MEMBERSHIP_KEY}": "{pairs}"}}'


def apply_membership(op: Operation, membership: MembershipAttr | None) -> None:
    if membership is not None:
        op.attributes[MEMBERSHIP_ATTR_NAME] = membership
