"""
PyPTO type annotations: reading them from `ast` nodes and printing our types
in their form (`pl.Tensor[[64], pl.FP32]`, `pl.Tile[[16, 64], pl.BF16,
pl.Mem.Mat]`, `pl.Scalar[pl.INDEX]`), and the declared allocation a tile's
annotation may bind it to (`pl.MemRef("name", slots=N)[k]`).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.allocation import MAX_SLOTS
from pypto_dialect.dsl.source import SourceFile
from pypto_dialect.dsl.tables import (
    DIRECTION_MARKERS,
    DTYPE_NAMES,
    DTYPES,
    MEMORY_SPACE_ENUMS,
    MEMORY_SPACE_NAMES,
    MEMORY_SPACES,
    MODULE_ALIAS,
    SCALAR_DTYPES,
)
from pypto_dialect.types import (
    MemorySpace,
    TensorType,
    TileType,
    verify_element_type,
    verify_static_shape,
)

_SHOWN_SLOTS = 10**6
"""A slot count is quoted in a message only below this (not any literal)."""


class NoPyPTOForm(Exception):
    """Something of our IR that PyPTO text cannot express; the message says what."""


@dataclass(frozen=True)
class OpenTile:
    """`pl.Tile[[...], DT]` without a memory space: any space matches it."""

    shape: tuple[int, ...]
    element_type: Attribute

    def with_space(self, space: MemorySpace) -> TileType:
        return tile_type(self.shape, self.element_type, space)


Annotation = Attribute | OpenTile


@lru_cache(maxsize=256)
def tile_type(
    shape: tuple[int, ...], element_type: Attribute, space: MemorySpace
) -> TileType:
    """`TileType(...)`, made once: a program spells a few types many times."""
    return TileType(shape, element_type, space)


@lru_cache(maxsize=256)
def tensor_type(shape: tuple[int, ...], element_type: Attribute) -> TensorType:
    """`TensorType(...)`, made once (as `tile_type`)."""
    return TensorType(shape, element_type)


MEMREF = "MemRef"


@dataclass(frozen=True)
class MemRefSpec:
    """
    `pl.MemRef("name")` or `pl.MemRef("name", slots=N)[k]` in a tile
    annotation: the allocation it declares (by name), its slot count, and the
    slot's index expression (None without a subscript).
    """

    name: str
    slots: int
    index: ast.expr | None
    node: ast.expr


def resolve(annotation: Annotation, space: MemorySpace = MemorySpace.VEC) -> Attribute:
    """The type an annotation gives, `space` completing an open tile."""
    if isinstance(annotation, OpenTile):
        return annotation.with_space(space)
    return annotation


def matches(annotation: Annotation, typ: Attribute) -> bool:
    """Whether a value of type `typ` satisfies `annotation`."""
    if isinstance(annotation, OpenTile):
        return (
            isinstance(typ, TileType)
            and typ.get_shape() == annotation.shape
            and typ.element_type == annotation.element_type
        )
    return annotation == typ


def pl_path(node: ast.expr, alias: str = MODULE_ALIAS) -> tuple[str, ...] | None:
    """`("tile", "load")` for `pl.tile.load`; None unless `node` is such a path."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name) or node.id != alias or not parts:
        return None
    return tuple(reversed(parts))


def dotted(node: ast.expr) -> str:
    """`pl.tile.load` for a dotted name, else a short description of `node`."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return ast.unparse(node) if len(ast.unparse(node)) <= 40 else type(node).__name__


@dataclass(frozen=True)
class AnnotationReader:
    """Reads annotations of one source file (errors at their nodes)."""

    source: SourceFile
    alias: str = MODULE_ALIAS
    _known: dict[tuple[str, bool], Annotation] = field(
        default_factory=dict[tuple[str, bool], Annotation], compare=False
    )
    """
    The annotations read so far without a `pl.MemRef`, by their text and
    whether they were a parameter's: a program repeats a few annotations.
    """

    def read(self, node: ast.expr, *, parameter: bool = False) -> Annotation:
        """The type of an annotation; `parameter` also allows `pl.Out[T]`, `pl.InOut[T]`."""
        annotation, memref = self.read_assigned(node, parameter=parameter)
        if memref is not None:
            self.source.fail(
                memref.node,
                f"a {self.alias}.{MEMREF} binds the tile a {self.alias}.tile call "
                f"computes: it is only supported on the annotation of its result "
                f"(t: {self.alias}.Tile[[...], DT, {self.alias}.{MEMREF}(...), "
                f"{self.alias}.Mem.X] = {self.alias}.tile....)",
            )
        return annotation

    def read_assigned(
        self, node: ast.expr, *, parameter: bool = False
    ) -> tuple[Annotation, MemRefSpec | None]:
        """`read`, where a tile annotation may also bind the tile to an allocation."""
        text = self.source.segment(node)
        known = None if text is None else self._known.get((text, parameter))
        if known is not None:
            return known, None
        annotation, memref = self._read_assigned(node, parameter)
        if text is not None and memref is None:
            self._known[text, parameter] = annotation
        return annotation, memref

    def _read_assigned(
        self, node: ast.expr, parameter: bool
    ) -> tuple[Annotation, MemRefSpec | None]:
        if not isinstance(node, ast.Subscript):
            self.source.fail(node, f"unsupported type annotation '{dotted(node)}'")
        path = pl_path(node.value, self.alias)
        kind = path[0] if path is not None and len(path) == 1 else None
        if kind in DIRECTION_MARKERS and parameter:
            return self.read(node.slice), None
        if kind == "Tensor":
            shape, element_type = self._shaped(node, 2, 2)
            return tensor_type(shape, element_type), None
        if kind == "Tile":
            return self._tile(node)
        if kind == "Scalar":
            return self.dtype(node.slice, SCALAR_DTYPES), None
        return self.source.fail(
            node.value, f"unsupported type annotation '{dotted(node.value)}'"
        )

    def dtype(
        self, node: ast.expr, table: Mapping[str, Attribute] = DTYPES
    ) -> Attribute:
        """`pl.FP32` and the like (`table` defaults to the element types)."""
        path = pl_path(node, self.alias)
        if path is None or len(path) != 1 or path[0] not in table:
            known = ", ".join(f"{self.alias}.{name}" for name in table)
            self.source.fail(node, f"unknown dtype '{dotted(node)}' (known: {known})")
        return table[path[0]]

    def memory_space(self, node: ast.expr) -> MemorySpace:
        """`pl.Mem.Vec` or `pl.MemorySpace.Vec`."""
        path = pl_path(node, self.alias)
        if (
            path is None
            or len(path) != 2
            or path[0] not in MEMORY_SPACE_ENUMS
            or path[1] not in MEMORY_SPACES
        ):
            known = ", ".join(MEMORY_SPACES)
            self.source.fail(
                node,
                f"unknown memory space '{dotted(node)}' (pl.Mem.X with X in {known})",
            )
        return MEMORY_SPACES[path[1]]

    def shape(self, node: ast.expr, what: str) -> tuple[int, ...]:
        """A list of positive integer literals."""
        if not isinstance(node, ast.List | ast.Tuple):
            self.source.fail(node, f"expected the {what} as a list of integers")
        dims: list[int] = []
        for dim in node.elts:
            value = dim.value if isinstance(dim, ast.Constant) else None
            if not isinstance(value, int) or isinstance(value, bool):
                self.source.fail(dim, f"expected an integer literal in the {what}")
            dims.append(value)
        try:
            verify_static_shape(dims, what)
        except VerifyException as error:
            self.source.fail(node, str(error))
        return tuple(dims)

    def _arguments(self, node: ast.Subscript, least: int, most: int) -> list[ast.expr]:
        items = (
            list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]
        )
        if not least <= len(items) <= most:
            self.source.fail(
                node,
                f"'{dotted(node.value)}' expects [shape, dtype, ...], got {len(items)} arguments",
            )
        return items

    def _shaped(
        self, node: ast.Subscript, least: int, most: int
    ) -> tuple[tuple[int, ...], Attribute]:
        items = self._arguments(node, least, most)
        what = "tensor" if least == most else "tile"
        shape = self.shape(items[0], f"{what} shape")
        element_type = self.dtype(items[1])
        try:
            verify_element_type(element_type, what)
        except VerifyException as error:
            self.source.fail(items[1], str(error))
        return shape, element_type

    def _tile(self, node: ast.Subscript) -> tuple[Annotation, MemRefSpec | None]:
        shape, element_type = self._shaped(node, 2, 5)
        space: MemorySpace | None = None
        memref: MemRefSpec | None = None
        for item in self._arguments(node, 2, 5)[2:]:
            if isinstance(item, ast.Call) and pl_path(item.func, self.alias) == (
                "TileView",
            ):
                continue  # layout, which the IR does not model
            if space is None and _is_space_path(pl_path(item, self.alias)):
                space = self.memory_space(item)
                continue
            if memref is None and (memref := self._memref(item)) is not None:
                continue
            self.source.fail(
                item,
                f"unsupported item '{dotted(item)}' of a tile annotation: expected a "
                f'memory space, {self.alias}.{MEMREF}("name") (declared inline, not '
                f"held in a variable) or {self.alias}.TileView(...)",
            )
        if space is None:
            if memref is not None:
                self.source.fail(
                    memref.node,
                    f"a tile bound to a {self.alias}.{MEMREF} needs its memory space "
                    f"({self.alias}.Mem.X)",
                )
            return OpenTile(shape, element_type), None
        return tile_type(shape, element_type, space), memref

    def _memref(self, item: ast.expr) -> MemRefSpec | None:
        """`pl.MemRef("name", slots=N)[k]` (slots and subscript optional), else None."""
        call, index = (
            (item.value, item.slice)
            if isinstance(item, ast.Subscript)
            else (item, None)
        )
        if not isinstance(call, ast.Call) or pl_path(call.func, self.alias) != (
            MEMREF,
        ):
            return None
        name = call.args[0] if len(call.args) == 1 else None
        if not isinstance(name, ast.Constant) or not isinstance(name.value, str):
            self.source.fail(
                call,
                f"a {self.alias}.{MEMREF} of a tile annotation declares an allocation "
                f'by name: {self.alias}.{MEMREF}("name") or '
                f'{self.alias}.{MEMREF}("name", slots=N)',
            )
        slots = 1
        for keyword in call.keywords:
            if keyword.arg != "slots":
                self.source.fail(
                    keyword,
                    f"unsupported argument of {self.alias}.{MEMREF} (only slots=N)",
                )
            value = (
                keyword.value.value if isinstance(keyword.value, ast.Constant) else None
            )
            if not isinstance(value, int) or isinstance(value, bool):
                self.source.fail(keyword.value, "slots must be an integer literal")
            if not 1 <= value <= MAX_SLOTS:
                shown = f", got {value}" if abs(value) < _SHOWN_SLOTS else ""
                self.source.fail(
                    keyword.value,
                    f"{self.alias}.{MEMREF} takes 1 to {MAX_SLOTS} slots{shown}",
                )
            slots = value
        return MemRefSpec(name.value, slots, index, item)


def _is_space_path(path: Sequence[str] | None) -> bool:
    return path is not None and len(path) >= 1 and path[0] in MEMORY_SPACE_ENUMS


# --------------------------------------------------------------------------- #
# Printing
# --------------------------------------------------------------------------- #


def dtype_text(typ: Attribute) -> str:
    """`pl.FP32` for `f32`; `NoPyPTOForm` for a type without a PyPTO dtype."""
    name = DTYPE_NAMES.get(typ)
    if name is None:
        raise NoPyPTOForm(f"type {typ} has no PyPTO dtype")
    return f"{MODULE_ALIAS}.{name}"


def shape_text(shape: Sequence[int]) -> str:
    return "[" + ", ".join(str(dim) for dim in shape) + "]"


def space_text(space: MemorySpace) -> str:
    return f"{MODULE_ALIAS}.Mem.{MEMORY_SPACE_NAMES[space]}"


def fill_space_problem(space: MemorySpace) -> str:
    """Why a fill in `space` (not Vec) has no PyPTO form: both directions say it."""
    return (
        f"pl.tile.full cannot fill {space_text(space)}: PyPTO's tile.full fills Vec "
        "only (an Acc accumulator starts with pl.tile.matmul)"
    )


def type_text(typ: Attribute) -> str:
    """The PyPTO annotation of `typ`; `NoPyPTOForm` if it has none."""
    if isinstance(typ, TensorType):
        return f"{MODULE_ALIAS}.Tensor[{shape_text(typ.get_shape())}, {dtype_text(typ.element_type)}]"
    if isinstance(typ, TileType):
        return (
            f"{MODULE_ALIAS}.Tile[{shape_text(typ.get_shape())}, "
            f"{dtype_text(typ.element_type)}, {space_text(typ.memory_space)}]"
        )
    if typ in DTYPE_NAMES:
        return f"{MODULE_ALIAS}.Scalar[{dtype_text(typ)}]"
    raise NoPyPTOForm(f"type {typ} has no PyPTO form")


def bound_tile_text(tile: TileType, name: str, slots: int, index: str | None) -> str:
    """`pl.Tile[[64], pl.FP32, pl.MemRef("name", slots=2)[k], pl.Mem.Vec]`."""
    memref = f'{MODULE_ALIAS}.{MEMREF}("{name}"' + (
        f", slots={slots})" if slots > 1 else ")"
    )
    if index is not None:
        memref += f"[{index}]"
    return (
        f"{MODULE_ALIAS}.Tile[{shape_text(tile.get_shape())}, "
        f"{dtype_text(tile.element_type)}, {memref}, {space_text(tile.memory_space)}]"
    )


def annotation_text(annotation: Annotation) -> str:
    """An annotation as PyPTO text, for messages."""
    if isinstance(annotation, OpenTile):
        return (
            f"{MODULE_ALIAS}.Tile[{shape_text(annotation.shape)}, "
            f"{dtype_text(annotation.element_type)}]"
        )
    try:
        return type_text(annotation)
    except NoPyPTOForm:
        return str(annotation)
