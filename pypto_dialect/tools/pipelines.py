"""
Pass pipelines from the command line, with an answer to every mistake: the
parsing that `pypto-opt --passes`, `pypto-run --passes` and `pypto-report
--passes` share, and the pass reference of `pypto-opt --list-passes` and
`pypto-opt --help-pass NAME`.

A pass's options are the fields of its dataclass, spelled with dashes or
underscores (`max-copies` or `max_copies`), as xDSL maps them. What a pass
does is its class docstring, whose first sentence is its summary; what an
option means is its attribute docstring, the string literal after its field
in the class body (as xDSL documents fields), read from the source with
`ast`. Nothing is written down twice.
"""

from __future__ import annotations

import ast
import dataclasses
import difflib
import inspect
import re
import sys
import textwrap
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from importlib.metadata import packages_distributions
from itertools import pairwise
from types import NoneType, UnionType
from typing import Any, Literal, Union, get_args, get_origin, get_type_hints

from xdsl.passes import ModulePass, PassPipeline, PassPipelineCallbackType
from xdsl.utils.arg_spec import ArgSpec, ParameterListType, PipelineLexer, SpecTokenKind
from xdsl.utils.arg_spec import parse_pipeline as parse_pipeline_specs
from xdsl.utils.exceptions import ArgSpecParseError
from xdsl.utils.hints import isa

PassFactories = Mapping[str, Callable[[], type[ModulePass]]]
"""Pass classes by name, each imported by its factory when first needed."""

LIST_PASSES = "pypto-opt --list-passes"
"""The command that lists the passes, which error messages point to."""
HELP_PASS = "pypto-opt --help-pass"
"""The command that describes a pass (followed by its name)."""

SUMMARY_WIDTH = 80
"""The most characters of a pass's summary in `--list-passes`."""
CLOSE = 0.6
"""How similar (`difflib`'s ratio) a name must be to a mistyped one to be suggested."""
SIMILAR = 0.1
"""Names suggested together are this close in similarity to the best one."""
SHOWN_VALUE = 40
"""The most characters of a user's value that a message repeats."""


class PipelineError(Exception):
    """A pass pipeline that cannot be built; the message says why, and what would do."""


# --------------------------------------------------------------------------- #
# Options
# --------------------------------------------------------------------------- #


@dataclass(frozen=True)
class PassOption:
    """One option of a pass: a field of its dataclass."""

    field: str
    """The field's name (`max_copies`)."""
    hint: Any
    """The field's type."""
    default: object
    """The default value, `dataclasses.MISSING` for a required option."""
    description: str | None
    """The field's attribute docstring."""

    @property
    def name(self) -> str:
        """The option as the documentation spells it (`max-copies`)."""
        return self.field.replace("_", "-")

    @property
    def spellings(self) -> str:
        """`max-copies (or max_copies)`: every spelling xDSL accepts."""
        if self.name == self.field:
            return self.name
        return f"{self.name} (or {self.field})"

    @property
    def required(self) -> bool:
        return self.default is dataclasses.MISSING

    @property
    def accepted(self) -> str:
        """The values the option takes, in words."""
        return _accepted(self.hint)

    @property
    def default_text(self) -> str:
        """The default as it would be written in a pipeline."""
        if self.required:
            return "none: required"
        return _value_text(self.default)

    def accepts(self, value: ParameterListType) -> bool:
        """
        Whether xDSL converts `value` to the option's type, as
        `ArgSpecConvertible.from_spec` does, except that `true` and `false`
        are not integers: a single value of the type, or the values of a
        tuple type; no value for an optional one.
        """
        if not value:
            return _is_union(self.hint) and NoneType in get_args(self.hint)
        return (len(value) == 1 and _isa(value[0], self.hint)) or _isa(value, self.hint)


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, UnionType)


def _isa(value: object, hint: Any) -> bool:
    """`xdsl.utils.hints.isa`, with `bool` no `int` (`max-copies=true` is a mistake)."""
    if hint in (bool, int, float, str):
        return type(value) is hint
    origin = get_origin(hint)
    arguments = get_args(hint)
    if _is_union(hint):
        return any(_isa(value, alternative) for alternative in arguments)
    if origin is tuple and isinstance(value, tuple):
        items: tuple[object, ...] = value  # pyright: ignore[reportUnknownVariableType]
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return all(_isa(item, arguments[0]) for item in items)
        return len(items) == len(arguments) and all(
            _isa(item, item_hint)
            for item, item_hint in zip(items, arguments, strict=True)
        )
    return isa(value, hint)


_WORDS = {
    bool: ("true or false", "true or false values"),
    int: ("an integer", "integers"),
    float: ("a number with a decimal point (2.0, not 2)", "numbers like 2.0"),
    str: ("a string", "strings"),
    NoneType: ("nothing (the option alone)", "nothing"),
}
"""How messages name a value of each base type, one and several."""


def _accepted(hint: Any, plural: bool = False) -> str:
    """The values of `hint`, in words (`an integer`, `one of fast, none`)."""
    if hint in _WORDS:
        return _WORDS[hint][plural]
    origin = get_origin(hint)
    arguments = get_args(hint)
    if origin is Literal:
        return "one of " + ", ".join(
            choice if isinstance(choice, str) else _value_text(choice)
            for choice in arguments
        )
    if _is_union(hint):
        return ", or ".join(_accepted(alternative, plural) for alternative in arguments)
    if origin is tuple:
        if len(arguments) == 2 and arguments[1] is Ellipsis:
            return f"{_accepted(arguments[0], plural=True)} separated by commas"
        return f"{len(arguments)} values separated by commas"
    return getattr(hint, "__name__", str(hint))


def _value_text(value: object) -> str:
    """`value` as a pipeline spells it: `true`, `1,2`, `"text"`, `none`."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, tuple):
        items: tuple[object, ...] = value  # pyright: ignore[reportUnknownVariableType]
        return ",".join(_value_text(item) for item in items) or "empty"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def _shown(value: ParameterListType) -> str:
    """A user's value as typed, for a message, cut short if long."""
    if not value:
        return "no value"
    text = ",".join(
        str(item).lower() if isinstance(item, bool) else str(item) for item in value
    )
    if len(text) > SHOWN_VALUE:
        text = text[: SHOWN_VALUE - 3] + "..."
    return f"'{text}'"


def pass_options(pass_class: type[ModulePass]) -> tuple[PassOption, ...]:
    """The options of `pass_class`, in field order, with their descriptions."""
    try:
        hints = get_type_hints(pass_class)
    except (NameError, TypeError):  # an annotation that does not resolve
        hints = {}
    documented = _attribute_docstrings(pass_class)
    return tuple(
        PassOption(
            field.name,
            hints.get(field.name, field.type),
            _default(field),
            documented.get(field.name),
        )
        for field in dataclasses.fields(pass_class)
        if field.init
    )


def _default(field: dataclasses.Field[Any]) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _attribute_docstrings(cls: type) -> dict[str, str]:
    """The attribute docstrings of `cls` and its bases, by field name."""
    documented: dict[str, str] = {}
    for base in reversed(cls.__mro__):
        documented |= _own_attribute_docstrings(base)
    return documented


@cache
def _own_attribute_docstrings(cls: type) -> dict[str, str]:
    """The string literals that follow annotated names in the body of `cls`."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(cls)))
    except (OSError, TypeError, SyntaxError):  # no source: nothing documented
        return {}
    definition = tree.body[0]
    if not isinstance(definition, ast.ClassDef):
        return {}
    documented: dict[str, str] = {}
    body = definition.body
    for statement, following in pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            documented[statement.target.id] = inspect.cleandoc(following.value.value)
    return documented


def pass_description(pass_class: type[ModulePass]) -> str | None:
    """The class docstring of `pass_class`, if it has one of its own."""
    doc = pass_class.__dict__.get("__doc__")
    # A dataclass without a docstring gets its signature as one.
    if not isinstance(doc, str) or doc.startswith(f"{pass_class.__name__}("):
        return None
    return inspect.cleandoc(doc) or None


_SENTENCE_END = re.compile(r"(?<=\.)\s+(?=[A-Z])")
"""A full stop, and the capital letter that starts the next sentence."""


def pass_summary(pass_class: type[ModulePass]) -> str:
    """The first sentence of the pass's description, on one short line."""
    description = pass_description(pass_class)
    if description is None:
        return "(no description)"
    paragraph = " ".join(description.split("\n\n", 1)[0].split())
    sentence = _SENTENCE_END.split(paragraph, maxsplit=1)[0].rstrip(".")
    return textwrap.shorten(sentence, SUMMARY_WIDTH, placeholder=" ...")


# --------------------------------------------------------------------------- #
# Pipelines
# --------------------------------------------------------------------------- #


def parse_pipeline(
    spec: str,
    available: PassFactories,
    callback: PassPipelineCallbackType | None = None,
) -> PassPipeline:
    """
    The pipeline `spec` names (`name{option=value ...},...`), as xDSL's
    `PassPipeline.parse_spec` builds it, or a `PipelineError` that names the
    mistake: a pass that does not exist (with the nearest names), an option
    the pass does not have (with its options), a value of the wrong type
    (with the values it takes), or a required option left out.
    """
    try:
        specs = list(parse_pipeline_specs(spec))
    except ArgSpecParseError as error:
        raise PipelineError(str(error)) from None
    except ValueError:  # xDSL's int() of a NUMBER token: the one way it fails
        raise PipelineError(
            "cannot read the pipeline: an integer has more than "
            f"{sys.get_int_max_str_digits()} digits"
        ) from None
    if (problem := _duplicated_option(spec)) is not None:
        raise PipelineError(problem)
    for pass_spec in specs:
        check_pass_name(pass_spec.name, available)
    return PassPipeline(
        tuple(_build(pass_spec, available) for pass_spec in specs), callback
    )


def _duplicated_option(spec: str) -> str | None:
    """
    The option given twice to one pass of `spec` (a pipeline xDSL parses), if
    any: xDSL's parser keeps the last value in a dict, so the duplicate is
    found in the tokens (an option's name follows `{` or a space inside the
    braces; `-` and `_` spell the same option).
    """
    lexer = PipelineLexer(spec)
    name, seen, previous = "", set[str](), SpecTokenKind.COMMA
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.IDENT and previous is SpecTokenKind.COMMA:
            if not seen:  # outside braces: a pass's name
                name = token.span.text
        elif token.kind is SpecTokenKind.IDENT and previous in _OPTION_STARTS:
            option = token.span.text.replace("_", "-")
            if option in seen:
                return f"pass '{name}': option '{option}' is given twice"
            seen.add(option)
        elif token.kind is SpecTokenKind.R_BRACE:
            seen = set[str]()
        previous = token.kind
    return None


_OPTION_STARTS = (SpecTokenKind.L_BRACE, SpecTokenKind.SPACE)


def check_pass_name(name: str, available: PassFactories) -> None:
    """Raise a `PipelineError` unless `name` is one of the `available` passes."""
    if name in available:
        return
    raise PipelineError(
        f"unknown pass '{name}'{_did_you_mean(name, available)} "
        f"({LIST_PASSES} lists the passes)"
    )


def load_pass(name: str, available: PassFactories) -> type[ModulePass]:
    """The class of the pass `name`, which must be available."""
    try:
        return available[name]()
    except ImportError as error:  # an upstream pass's missing dependency
        raise PipelineError(f"pass '{name}' cannot be loaded: {error}") from None


def _build(spec: ArgSpec, available: PassFactories) -> ModulePass:
    pass_class = load_pass(spec.name, available)
    options = {option.field: option for option in pass_options(pass_class)}
    for spelling, value in spec.parameters.items():
        option = options.get(spelling.replace("-", "_"))
        if option is None:
            raise PipelineError(_unknown_option(spec.name, spelling, options))
        if not option.accepts(value):
            raise PipelineError(
                f"pass '{spec.name}': option '{spelling}' takes "
                f"{option.accepted}, got {_shown(value)}{_choice_hint(option, value)}"
            )
    given = spec.normalize_parameter_names().parameters
    for option in options.values():
        if option.required and option.field not in given:
            raise PipelineError(
                f"pass '{spec.name}' needs the option '{option.name}' "
                f"({option.accepted})"
            )
    try:
        return pass_class.from_pass_spec(spec)
    except ValueError as error:  # the pass's own check of its options
        raise PipelineError(f"pass '{spec.name}': {error}") from None


def _unknown_option(name: str, spelling: str, options: Mapping[str, PassOption]) -> str:
    if not options:
        return f"pass '{name}' has no options, got '{spelling}'"
    known = "; ".join(option.spellings for option in options.values())
    names = [option.name for option in options.values()]
    suggestion = _did_you_mean(spelling.replace("_", "-"), names)
    return (
        f"pass '{name}' has no option '{spelling}'{suggestion} (its options: "
        f"{known}; `{HELP_PASS} {name}` describes them)"
    )


def _choice_hint(option: PassOption, value: ParameterListType) -> str:
    """`_did_you_mean` among the choices of a `Literal` option, for one string."""
    if get_origin(option.hint) is not Literal or len(value) != 1:
        return ""
    (given,) = value
    choices = [c for c in get_args(option.hint) if isinstance(c, str)]
    return _did_you_mean(given, choices) if isinstance(given, str) else ""


def _did_you_mean(name: str, choices: Iterable[str]) -> str:
    """
    `; did you mean 'a' or 'b'?`: the (at most three) choices as similar to
    `name` as the most similar one, give or take `SIMILAR`, if that is close.
    """
    similarity = {
        choice: difflib.SequenceMatcher(None, name, choice).ratio()
        for choice in choices
    }
    best = max(similarity.values(), default=0.0)
    close = sorted(
        (c for c, ratio in similarity.items() if ratio >= max(CLOSE, best - SIMILAR)),
        key=similarity.__getitem__,
        reverse=True,
    )[:3]
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{choice}'" for choice in close) + "?"


# --------------------------------------------------------------------------- #
# The reference
# --------------------------------------------------------------------------- #


def list_passes(available: PassFactories, first: str = "pypto-dialect") -> str:
    """
    `--list-passes`: one line per pass (its name and summary), grouped by the
    distribution that provides it, `first`'s group first.
    """
    distributions = packages_distributions()
    groups: dict[str, list[tuple[str, str]]] = {}
    for name in sorted(available):
        try:
            pass_class = available[name]()
        except ImportError as error:
            groups.setdefault("(cannot be loaded)", []).append((name, str(error)))
            continue
        package = pass_class.__module__.split(".", 1)[0]
        owner = distributions.get(package, [package])[0]
        groups.setdefault(owner, []).append((name, pass_summary(pass_class)))
    lines: list[str] = []
    for owner in sorted(groups, key=lambda owner: (owner != first, owner)):
        width = max(len(name) for name, _ in groups[owner])
        lines.append(f"{owner} passes:")
        lines.extend(
            f"  {name.ljust(width)}  {summary}" for name, summary in groups[owner]
        )
        lines.append("")
    lines.append(
        f"`{HELP_PASS} NAME` describes a pass and its options; "
        "`--passes 'a,b{option=value}'` runs passes."
    )
    return "\n".join(lines)


def help_pass(name: str, available: PassFactories) -> str:
    """`--help-pass NAME`: the pass's description and each option's."""
    check_pass_name(name, available)
    pass_class = load_pass(name, available)
    description = pass_description(pass_class) or "(no description)"
    lines = [
        f"{name} ({pass_class.__module__}.{pass_class.__qualname__})",
        "",
        textwrap.indent(description, "  "),
        "",
    ]
    options = pass_options(pass_class)
    if not options:
        lines.append("Options: none.")
        return "\n".join(lines)
    lines.append(f"Options ({name}{{option=value ...}}):")
    for option in options:
        lines.append(
            f"  {option.spellings}: {option.accepted}; default {option.default_text}"
        )
        lines.append(
            textwrap.indent(option.description or "(no description)", "      ")
        )
    return "\n".join(lines)
