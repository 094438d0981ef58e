"""
Kernels that run together: a cube kernel names its vector kernel and the
depth of the FIFOs between them.

```mlir
func.func @cube(...) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 4 : i64} {...}
func.func @vec(...) {...}
```

`core_groups` reads the groups of a module and checks them (the tools'
verifier, `checked.verify_module`, calls it): the vector kernel is another
function of the module with a body, in no other group; the depth is at least
1; every pop of either kernel has a push of its peer on its channel, of the
same tile type.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NoReturn

from xdsl.dialects import func
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, SymbolRefAttr
from xdsl.ir import Attribute, Operation
from xdsl.traits import SymbolTable
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.effects import ChannelDirection
from pypto_dialect.tile import TPopOp, TPushOp
from pypto_dialect.walks import walk_ops

VECTOR_KERNEL = "pypto.vector_kernel"
"""The attribute of a cube kernel naming its vector kernel."""
FIFO_DEPTH = "pypto.fifo_depth"
"""The attribute of a cube kernel giving the tiles each FIFO holds at most."""


@dataclass(frozen=True)
class CoreGroup:
    """A cube kernel and its vector kernel, and the depth of their FIFOs."""

    cube: func.FuncOp
    vector: func.FuncOp
    fifo_depth: int


def core_groups(module: ModuleOp) -> list[CoreGroup]:
    """The core groups of `module`, checked (a `VerifyException` located at the op)."""
    groups: list[CoreGroup] = []
    taken: dict[func.FuncOp, func.FuncOp] = {}
    for cube in module.ops:
        if not isinstance(cube, func.FuncOp) or VECTOR_KERNEL not in cube.attributes:
            continue
        group = _group(module, cube)
        for kernel in (group.cube, group.vector):
            other = taken.get(kernel)
            if other is not None:
                _fail(
                    cube,
                    f"@{kernel.sym_name.data} is already in the group of "
                    f"@{other.sym_name.data}",
                )
            taken[kernel] = cube
        _check_channels(group.cube, group.vector)
        _check_channels(group.vector, group.cube)
        groups.append(group)
    return groups


def declared_fifo_depths(module: ModuleOp) -> dict[func.FuncOp, int]:
    """
    The FIFO depth of each kernel of a well-formed group declaration (the
    cube kernel and its vector kernel), unchecked otherwise: for passes,
    which run before the tools' verifier sees a group.
    """
    depths: dict[func.FuncOp, int] = {}
    for cube in module.ops:
        if not isinstance(cube, func.FuncOp):
            continue
        name, depth = (
            cube.attributes.get(VECTOR_KERNEL),
            cube.attributes.get(FIFO_DEPTH),
        )
        if not isinstance(name, SymbolRefAttr) or not isinstance(depth, IntegerAttr):
            continue
        vector = SymbolTable.lookup_symbol(module, name)
        depths[cube] = depth.value.data
        if isinstance(vector, func.FuncOp):
            depths[vector] = depth.value.data
    return depths


def _group(module: ModuleOp, cube: func.FuncOp) -> CoreGroup:
    name = cube.attributes[VECTOR_KERNEL]
    if not isinstance(name, SymbolRefAttr) or name.nested_references.data:
        _fail(cube, f"{VECTOR_KERNEL} must name a function (@name), got {name}")
    vector = SymbolTable.lookup_symbol(module, name)
    if not isinstance(vector, func.FuncOp) or vector.is_declaration:
        _fail(cube, f"{VECTOR_KERNEL}: no function @{name.string_value()} with a body")
    if vector is cube:
        _fail(cube, f"{VECTOR_KERNEL}: a kernel cannot be its own vector kernel")
    depth = _depth(cube, cube.attributes.get(FIFO_DEPTH))
    return CoreGroup(cube, vector, depth)


def _depth(cube: func.FuncOp, attr: Attribute | None) -> int:
    if attr is None:
        _fail(cube, f"a kernel with {VECTOR_KERNEL} needs {FIFO_DEPTH} (an integer)")
    if not isinstance(attr, IntegerAttr):
        _fail(cube, f"{FIFO_DEPTH} must be an integer, got {attr}")
    depth = attr.value.data
    if depth < 1:
        _fail(cube, f"{FIFO_DEPTH} must be at least 1, got {depth}")
    return depth


def _check_channels(kernel: func.FuncOp, peer: func.FuncOp) -> None:
    """Every pop of `kernel` has a push of `peer` on its channel, of its tile type."""
    pushed: dict[ChannelDirection, set[Attribute]] = {}
    for op in walk_ops(peer):
        if isinstance(op, TPushOp):
            pushed.setdefault(op.channel.direction, set()).add(op.tile.type)
    for op in walk_ops(kernel):
        if not isinstance(op, TPopOp):
            continue
        types = pushed.get(op.channel.direction)
        where = f"@{peer.sym_name.data}"
        if not types:
            _fail(op, f"no push of {where} feeds this pop ({op.channel.direction})")
        if op.result.type not in types:
            listed = ", ".join(sorted(str(t) for t in types))
            _fail(
                op,
                f"pops {op.result.type}, but {where} pushes only {listed} "
                f"on {op.channel.direction}",
            )


def _fail(op: Operation, message: str) -> NoReturn:
    op.emit_error(message, VerifyException(message))
