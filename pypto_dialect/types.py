"""
Types of the `pypto` dialect: GM tensors, on-chip tiles, memory spaces and
declared allocations.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import auto

from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ArrayAttr,
    ContainerType,
    IntAttr,
    IntegerType,
    ShapedType,
)
from xdsl.dialects.utils import EnumAttribute
from xdsl.ir import Attribute, ParametrizedAttribute, TypeAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, BaseParser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from pypto_dialect.numbers import INDEX_MAX, integer_text
from pypto_dialect.xdsl_internals import skip_to

SUPPORTED_INTEGER_WIDTHS = (1, 8, 16, 32, 64)
SUPPORTED_INTEGER_TYPES = frozenset(
    IntegerType(width) for width in SUPPORTED_INTEGER_WIDTHS
)
"""The signless integer element types (`i1`, `i8`, `i16`, `i32`, `i64`)."""


class MemorySpace(StrEnum):
    """On-chip memory spaces of an Ascend core."""

    VEC = auto()
    """UB, the vector unit's buffer."""
    MAT = auto()
    """L1."""
    LEFT = auto()
    """L0A, left matmul operand."""
    RIGHT = auto()
    """L0B, right matmul operand."""
    ACC = auto()
    """L0C, the cube accumulator."""
    BIAS = auto()
    """Bias table."""


@irdl_attr_definition
class MemorySpaceAttr(EnumAttribute[MemorySpace]):
    """A memory space as a standalone attribute: `#pypto.memory_space<vec>`."""

    name = "pypto.memory_space"

    @classmethod
    def parse_parameter(cls, parser: AttrParser) -> MemorySpace:
        with parser.in_angle_brackets():
            return parser.parse_str_enum(MemorySpace)

    def print_parameter(self, printer: Printer) -> None:
        printer.print_string(f"<{self.data.value}>")


def verify_element_type(element_type: Attribute, what: str) -> None:
    """Raise unless `element_type` is a builtin float or signless integer type."""
    if isinstance(element_type, AnyFloat) or element_type in SUPPORTED_INTEGER_TYPES:
        return
    raise VerifyException(
        f"{what} element type must be a builtin float or a signless integer type "
        f"(i1, i8, i16, i32, i64), got {element_type}"
    )


def verify_static_shape(shape: Sequence[int], what: str) -> None:
    """Raise unless `shape` has at least one dimension, all static and positive."""
    if not shape:
        raise VerifyException(f"{what} must have at least one dimension")
    if DYNAMIC_INDEX in shape:
        raise VerifyException(
            f"{what} dimensions must be static, got {format_shape(shape)}"
        )
    if any(dim <= 0 for dim in shape):
        raise VerifyException(
            f"{what} dimensions must be positive, got {format_shape(shape)}"
        )
    if any(dim > INDEX_MAX for dim in shape):
        raise VerifyException(
            f"{what} dimensions must be at most {INDEX_MAX} (64-bit), got "
            f"{format_shape(shape)}"
        )


def format_shape(shape: Sequence[int]) -> str:
    """`128x64` (`?` for a dynamic dimension, huge ones abbreviated), for messages."""
    return "x".join("?" if dim == DYNAMIC_INDEX else integer_text(dim) for dim in shape)


# --------------------------------------------------------------------------- #
# The parse cache: a type's text, once parsed, is not lexed again.
# --------------------------------------------------------------------------- #

_PARSED: dict[str, _ShapedPyPTOType] = {}
"""Parsed types by their text, e.g. `!pypto.tile<64x64xf32, vec>`."""
_PARSED_LIMIT = 4096
_LONGEST = 256
"""Longer type texts are not cached (and not searched for)."""
_CACHEABLE = re.compile(r"!pypto\.\w+<[\w, ]*>", re.ASCII)
"""A text that names no alias and nests nothing: it alone determines the type."""


def _type_text(parser: BaseParser, start: int, prefix: str = "") -> tuple[str, int]:
    """`prefix` and the text from `start` up to the first `>`, and its end."""
    content = parser.lexer.input.content
    end = content.find(">", start, start + _LONGEST) + 1
    return prefix + content[start:end], end


def _remember(text: str, parsed: _ShapedPyPTOType) -> None:
    if _CACHEABLE.fullmatch(text) is None:
        return
    if len(_PARSED) >= _PARSED_LIMIT:
        _PARSED.clear()
    _PARSED[text] = parsed


_ELEMENT_TEXTS: dict[Attribute, str] = {}


def _element_text(element_type: Attribute) -> str:
    """`f32`: element types are few, and printing one needs a whole printer."""
    text = _ELEMENT_TEXTS.get(element_type)
    if text is None:
        text = _ELEMENT_TEXTS[element_type] = str(element_type)
    return text


def type_text(attribute: Attribute) -> str | None:
    """The printed text of a pypto tile or tensor type, else None."""
    return attribute.text if isinstance(attribute, _ShapedPyPTOType) else None


def parse_type(parser: AttrParser) -> Attribute:
    """`parser.parse_type()`, with the pypto types of a text parsed before cached."""
    start = parser.pos
    if not parser.lexer.input.content.startswith("!pypto.", start):
        return parser.parse_type()
    text, end = _type_text(parser, start)
    if (parsed := _PARSED.get(text)) is not None and skip_to(parser, end):
        return parsed
    parsed = parser.parse_type()
    if isinstance(parsed, _ShapedPyPTOType) and text.startswith(f"!{parsed.name}<"):
        _remember(text, parsed)
    return parsed


@dataclass(frozen=True, init=False)
class _ShapedPyPTOType(
    ParametrizedAttribute, TypeAttribute, ShapedType, ContainerType[Attribute]
):
    """
    Shared parameters and accessors of the two shaped types. A dataclass (as
    xDSL's `StencilType`), so that the parameters take part in `==` and `hash`.
    """

    shape: ArrayAttr[IntAttr]
    element_type: Attribute

    def get_num_dims(self) -> int:
        return len(self.shape.data)

    def get_shape(self) -> tuple[int, ...]:
        """The dimensions, computed once per instance (as `text`)."""
        cache = vars(self)
        shape: tuple[int, ...] | None = cache.get("_shape")
        if shape is None:
            shape = cache["_shape"] = tuple(dim.data for dim in self.shape.data)
        return shape

    def get_element_type(self) -> Attribute:
        return self.element_type

    def verify(self) -> None:
        what = self.name.removeprefix("pypto.")
        verify_static_shape(self.get_shape(), what)
        verify_element_type(self.element_type, what)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        text, end = _type_text(parser, parser.pos, f"!{cls.name}")
        if (parsed := _PARSED.get(text)) is not None and skip_to(parser, end):
            return parsed.parameters
        with parser.in_angle_brackets():
            parameters = cls._parse_inside(parser)
        _remember(text, cls.new(parameters))
        return parameters

    @classmethod
    def _parse_inside(cls, parser: AttrParser) -> Sequence[Attribute]:
        """The parameters, inside the angle brackets."""
        raise NotImplementedError

    @property
    def text(self) -> str:
        """
        The printed type, `!pypto.tile<64x64xf32, vec>`, computed once per
        instance (as `cached_property` would, which IRDL does not accept).
        """
        cache = vars(self)
        text: str | None = cache.get("_text")
        if text is None:
            shape = format_shape(self.get_shape())
            element = _element_text(self.element_type)
            text = f"!{self.name}<{shape}x{element}{self._text_after_element()}>"
            cache["_text"] = text
        return text

    def _text_after_element(self) -> str:
        return ""

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(self.text[len(self.name) + 1 :])

    @classmethod
    def _parse_shape(cls, parser: AttrParser) -> tuple[ArrayAttr[IntAttr], Attribute]:
        """Parse `128x64xf32`; invalid dimensions or element type are parse errors."""
        start = parser.pos
        shape, element_type = parser.parse_ranked_shape()
        what = cls.name.removeprefix("pypto.")
        try:
            verify_static_shape(shape, what)
            verify_element_type(element_type, what)
        except VerifyException as error:
            parser.raise_error(str(error), start, parser.pos)
        return _shape_attr(shape), element_type


def _shape_attr(shape: Sequence[int]) -> ArrayAttr[IntAttr]:
    return ArrayAttr(IntAttr(dim) for dim in shape)


@irdl_attr_definition
class TensorType(_ShapedPyPTOType):
    """A buffer in global memory: `!pypto.tensor<128x64xf32>` (reference semantics)."""

    name = "pypto.tensor"

    def __init__(self, shape: Sequence[int], element_type: Attribute):
        super().__init__(_shape_attr(shape), element_type)

    @classmethod
    def _parse_inside(cls, parser: AttrParser) -> tuple[ArrayAttr[IntAttr], Attribute]:
        return cls._parse_shape(parser)


@irdl_attr_definition
class TileType(_ShapedPyPTOType):
    """An immutable on-chip tile: `!pypto.tile<64x64xf32, vec>`."""

    name = "pypto.tile"

    space: MemorySpaceAttr

    def __init__(
        self,
        shape: Sequence[int],
        element_type: Attribute,
        space: MemorySpace | MemorySpaceAttr,
    ):
        if isinstance(space, MemorySpace):
            space = MemorySpaceAttr(space)
        super().__init__(_shape_attr(shape), element_type, space)

    @property
    def memory_space(self) -> MemorySpace:
        return self.space.data

    @classmethod
    def _parse_inside(
        cls, parser: AttrParser
    ) -> tuple[ArrayAttr[IntAttr], Attribute, MemorySpaceAttr]:
        shape, element_type = cls._parse_shape(parser)
        parser.parse_punctuation(",")
        return shape, element_type, MemorySpaceAttr(parser.parse_str_enum(MemorySpace))

    def _text_after_element(self) -> str:
        return f", {self.memory_space.value}"


SLOT_SPACES = frozenset({MemorySpace.VEC, MemorySpace.MAT, MemorySpace.ACC})
"""The memory spaces an allocation of several slots may be in (ptoas's)."""


@irdl_attr_definition
class AllocType(ParametrizedAttribute, TypeAttribute):
    """
    A declared allocation of on-chip memory, `!pypto.alloc<vec>`: the handle
    `pypto.alloc` gives and `pypto.bind` binds tiles to.
    """

    name = "pypto.alloc"

    space: MemorySpaceAttr

    def __init__(self, space: MemorySpace | MemorySpaceAttr):
        if isinstance(space, MemorySpace):
            space = MemorySpaceAttr(space)
        super().__init__(space)

    @property
    def memory_space(self) -> MemorySpace:
        return self.space.data

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            return (MemorySpaceAttr(parser.parse_str_enum(MemorySpace)),)

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(f"<{self.memory_space.value}>")
