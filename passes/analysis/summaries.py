"""
What the dependence graph needs of each op, as seen from outside it: the
values it uses and its memory accesses, including those of the ops nested in
it.

Memory effects come from xDSL's generic `MemoryEffect` traits: an op with
`RecursiveMemoryEffect` has the effects of the ops nested in it, and an op
without effect information (a call, an unregistered op), even nested, has
unknown effects. In a function that declares allocations, the slots of its
bound tiles add accesses no trait shows (`slot_accesses`, `slots.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from enum import Enum, auto
from functools import cache
from typing import NamedTuple, cast

from xdsl.dialects import func
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import (
    DefaultResource,
    EffectInstance,
    MemoryEffect,
    MemoryEffectKind,
    NoMemoryEffect,
    RecursiveMemoryEffect,
    Resource,
)

from passes.analysis.slots import binding_of, filled_binding, slot_window
from passes.analysis.windows import ANYWHERE, LinearForms, Window, access_window
from pypto_dialect.allocation import AllocOp, BindOp
from pypto_dialect.effects import (
    ALLOCATION_STORAGE,
    ReadsTensorWindow,
    TensorWindowAccess,
    WritesTensorWindow,
)
from pypto_dialect.xdsl_internals import block_ops, operands


@cache
def effect_traits(op_type: type[Operation]) -> tuple[MemoryEffect, ...]:
    """The `MemoryEffect` traits of an op class (traits are per class: cached)."""
    return tuple(op_type.get_traits_of_type(MemoryEffect))


@cache
def never_has_effects(op_type: type[Operation]) -> bool:
    """Whether every op of `op_type` is known to have no memory effect."""
    traits = effect_traits(op_type)
    return bool(traits) and all(isinstance(t, NoMemoryEffect) for t in traits)


@cache
def _accesses_a_window(op_type: type[Operation]) -> bool:
    return issubclass(op_type, TensorWindowAccess)


_WINDOW_TRAITS: dict[type[MemoryEffect], MemoryEffectKind] = {
    ReadsTensorWindow: MemoryEffectKind.READ,
    WritesTensorWindow: MemoryEffectKind.WRITE,
}


@cache
def _window_effect(op_type: type[Operation]) -> MemoryEffectKind | None:
    """
    The one effect of an op class whose only effect trait is `ReadsTensorWindow`
    or `WritesTensorWindow` (on its accessed tensor), so its access can be
    built without asking the trait; None for any other class.
    """
    traits = effect_traits(op_type)
    if len(traits) != 1 or not _accesses_a_window(op_type):
        return None
    return _WINDOW_TRAITS.get(type(traits[0]))


@cache
def window_access_kind(op_type: type[Operation]) -> AccessKind | None:
    """The `AccessKind` of the `_window_effect` of an op class, if any."""
    effect = _window_effect(op_type)
    if effect is None:
        return None
    return AccessKind.READ if effect is MemoryEffectKind.READ else AccessKind.WRITE


_DEFAULT = DefaultResource()


class ClassEffects(Enum):
    """What the class of an op says of its memory effects."""

    NONE = auto()
    """Never any (`never_has_effects`)."""
    WINDOW_READ = auto()
    """Only reading one window of the accessed tensor (`_window_effect`)."""
    OTHER = auto()
    """Anything else: ask `OpSummaries.accesses`."""


_CLASS_EFFECTS: dict[type[Operation], ClassEffects] = {}


def class_effects(op_type: type[Operation]) -> ClassEffects:
    """
    The `ClassEffects` of an op class, memoized in `CLASS_EFFECTS_OF` (a
    dictionary, whose `get` the graph asks per op without a Python call).
    """
    found = _CLASS_EFFECTS.get(op_type)
    if found is None:
        if never_has_effects(op_type):
            found = ClassEffects.NONE
        elif _window_effect(op_type) is MemoryEffectKind.READ:
            found = ClassEffects.WINDOW_READ
        else:
            found = ClassEffects.OTHER
        _CLASS_EFFECTS[op_type] = found
    return found


CLASS_EFFECTS_OF = _CLASS_EFFECTS.get
"""The memoized `class_effects` of a class, None when not asked yet."""


class AccessKind(Enum):
    """Whether an access reads or writes (allocations and frees count as writes)."""

    READ = "read"
    WRITE = "write"

    # The members are singletons: hash them by identity, as the frontier
    # looks them up per access (`Enum` hashes the name, in Python).
    __hash__ = object.__hash__


class MemoryAccess(NamedTuple):
    """
    One memory effect of an op or of an op nested in it. (A named tuple: the
    summaries make and dedupe one per access, and a frozen dataclass costs
    several times as much to build and to hash.)
    """

    kind: AccessKind
    resource: Resource
    value: SSAValue | None
    """The memory object (e.g. a tensor), None when unknown."""
    window: Window = ANYWHERE


class Outline(NamedTuple):
    """
    The accesses of an op with regions, as `OpSummaries.accesses` sees them,
    except those of the window reads nested in it: of those, only the tensors
    read. A read that no write of the enclosing block may touch conflicts with
    nothing there, so its window (formed and hidden level by level) is not
    needed.
    """

    accesses: tuple[MemoryAccess, ...]
    read_tensors: tuple[SSAValue, ...]
    """The distinct tensors of the nested window reads left out of `accesses`."""


class OpSummaries:
    """
    What the dependence graph needs of an op and the ops nested in it, as seen
    from outside: the values they use and their memory accesses. Memoized: an
    op with regions combines the summaries of the ops in its blocks, so the
    blocks of a nest analysed inside out visit each nested op once, not once
    per enclosing block. Valid while the summarized ops keep their contents
    (moving ops within a block, or changing attributes, is fine).
    """

    def __init__(self, forms: LinearForms | None = None, *, windows: bool = True):
        self.forms = forms if forms is not None else LinearForms()
        self.windows = windows
        """
        Whether accesses have their windows; without, every access is
        `ANYWHERE` (what it touches, not where: no linear form is computed).
        """
        # By `id` (xDSL hashes ops in Python), the ops kept alive in `_summarized`.
        self._uses: dict[int, tuple[SSAValue, ...]] = {}
        self._accesses: dict[int, tuple[MemoryAccess, ...] | None] = {}
        self._outlines: dict[int, Outline | None] = {}
        self._summarized: list[Operation] = []
        self._slotted: dict[int, bool] = {}
        """By the `id` of a block (kept alive in `_blocks`): `slots_in`."""
        self._blocks: list[Block | None] = []

    def slots_in(self, block: Block | None) -> bool:
        """
        Whether the ops of `block` may access allocation slots: its function
        declares an allocation (a block outside any function may). Memoized
        per block, each answered from its parent's.
        """
        found = self._slotted.get(id(block))
        if found is not None:
            return found
        owner = None if block is None else block.parent_op()
        if owner is None:
            found = True
        elif isinstance(owner, func.FuncOp):
            found = any(
                type(op) is AllocOp
                for body in owner.body.blocks
                for op in block_ops(body)
            )
        else:
            found = self.slots_in(owner.parent)
        self._slotted[id(block)] = found
        self._blocks.append(block)
        return found

    def slot_accesses(self, op: Operation) -> tuple[MemoryAccess, ...]:
        """
        The slot accesses of `op` that its effects do not show: it reads the
        slot of each bound tile it (or an op nested in it) uses, and writes
        the slot it computes its tile into (`slots.filled_binding`).
        """
        accesses: list[MemoryAccess] = []
        used = self.uses(op) if op.regions else operands(op)
        for value in used:
            if (binding := binding_of(value)) is not None:
                accesses.append(self._slot_access(AccessKind.READ, binding))
        if (binding := filled_binding(op)) is not None:
            accesses.append(self._slot_access(AccessKind.WRITE, binding))
        return tuple(dict.fromkeys(accesses))

    def _slot_access(self, kind: AccessKind, binding: BindOp) -> MemoryAccess:
        window = slot_window(binding, self.forms) if self.windows else ANYWHERE
        return MemoryAccess(kind, ALLOCATION_STORAGE, binding.allocation, window)

    def uses(self, op: Operation) -> Sequence[SSAValue]:
        """The distinct values used by `op` or an op nested in it, defined outside `op`."""
        if not op.regions:  # the common case: nothing to combine, nothing to memoize
            return tuple(dict.fromkeys(op.operands))
        found = self._uses.get(id(op))
        if found is None:
            values = list(operands(op))
            is_inner = _defined_directly_in(op)
            for nested in _nested_ops(op):
                # xDSL's tuple: its `operands` view costs two calls.
                used = self.uses(nested) if nested.regions else operands(nested)
                values.extend(value for value in used if not is_inner(value))
            found = self._uses[id(op)] = tuple(dict.fromkeys(values))
            self._summarized.append(op)
        return found

    def accesses(self, op: Operation) -> Sequence[MemoryAccess] | None:
        """
        The distinct memory accesses of `op` and of the ops nested in it, as
        seen from outside `op` (its `slot_accesses` included), or None when
        some effect is unknown. A window offset that depends on a value
        defined inside `op` is unknown in that dimension, so the nested
        accesses of a loop often coincide: they count once.
        """
        if never_has_effects(type(op)):
            return self.slot_accesses(op) if self.slots_in(op.parent) else ()
        key = id(op)
        if key in self._accesses:  # None is a value (unknown effects): no `get`
            return self._accesses[key]
        found = self._accesses[key] = self._compute_accesses(op)
        self._summarized.append(op)
        return found

    def outline(self, op: Operation) -> Outline | None:
        """
        The `Outline` of an op with regions, None when some effect is unknown
        (as `accesses` is). Memoized: the outline of an op combines those of
        the ops with regions nested in it.
        """
        key = id(op)
        if key in self._outlines:  # None is a value (unknown effects): no `get`
            return self._outlines[key]
        read_tensors: list[SSAValue] = []
        accesses = self._compute_accesses(op, read_tensors)
        found = self._outlines[key] = (
            None
            if accesses is None
            else Outline(accesses, tuple(dict.fromkeys(read_tensors)))
        )
        self._summarized.append(op)
        return found

    def _compute_accesses(
        self, op: Operation, read_tensors: list[SSAValue] | None = None
    ) -> tuple[MemoryAccess, ...] | None:
        """
        The accesses of `op`; given `read_tensors`, those of the window reads
        nested in `op` are left out and their tensors appended to it instead
        (an `Outline`).
        """
        slots = self.slot_accesses(op) if self.slots_in(op.parent) else ()
        if (kind := window_access_kind(type(op))) is not None:
            # The trait's one effect, without asking it for a set to dedupe.
            access = cast(TensorWindowAccess, op)
            window = access_window(access, self.forms) if self.windows else ANYWHERE
            return (
                MemoryAccess(kind, _DEFAULT, access.accessed_tensor, window),
                *slots,
            )
        traits = effect_traits(type(op))
        if not traits:
            return None
        accesses: list[MemoryAccess] = list(slots)
        for trait in traits:
            if isinstance(trait, RecursiveMemoryEffect):
                is_inner = _defined_directly_in(op)
                for nested in _nested_ops(op):
                    inner = self._nested_accesses(nested, read_tensors)
                    if inner is None:
                        return None
                    if inner:  # most nested ops have none
                        accesses.extend(_seen_from_outside(a, is_inner) for a in inner)
                continue
            effects = trait.get_effects(op)
            if effects is None:
                return None
            forms = self.forms if self.windows else None
            accesses.extend(_access(op, effect, forms) for effect in effects)
        return tuple(dict.fromkeys(accesses))

    def _nested_accesses(
        self, nested: Operation, read_tensors: list[SSAValue] | None
    ) -> Sequence[MemoryAccess] | None:
        """The accesses of an op nested in an op: its outline's, for an outline."""
        if read_tensors is None:
            return self.accesses(nested)
        effects = CLASS_EFFECTS_OF(type(nested)) or class_effects(type(nested))
        if effects is ClassEffects.WINDOW_READ:
            read_tensors.append(cast(TensorWindowAccess, nested).accessed_tensor)
            return ()
        if effects is ClassEffects.NONE or not nested.regions:
            return self.accesses(nested)
        outline = self.outline(nested)
        if outline is None:
            return None
        read_tensors.extend(outline.read_tensors)
        return outline.accesses


def _nested_ops(op: Operation) -> Iterator[Operation]:
    """The ops directly in the blocks of `op`."""
    for region in op.regions:
        for block in region.blocks:
            yield from block_ops(block)


def _defining_block(value: SSAValue) -> Block | None:
    """The block of a result's op or of a block argument (`type() is`: fast)."""
    if type(value) is OpResult:
        return value.op.parent
    return value.block if type(value) is BlockArgument else None


def _defined_directly_in(op: Operation) -> Callable[[SSAValue], bool]:
    """Whether a value is an argument of a block of `op`, or a result of an op in one."""
    blocks = [block for region in op.regions for block in region.blocks]
    if len(blocks) != 1:
        return lambda value: any(_defining_block(value) is block for block in blocks)
    only = blocks[0]

    def is_in_only_block(value: SSAValue) -> bool:
        # The common case, `_defining_block` inlined: it is asked per use.
        if type(value) is OpResult:
            return value.op.parent is only
        return type(value) is BlockArgument and value.block is only

    return is_in_only_block


def _access(
    op: Operation, effect: EffectInstance, forms: LinearForms | None
) -> MemoryAccess:
    """The access of an effect of `op`, with its window unless `forms` is None."""
    kind = AccessKind.READ if effect.kind is MemoryEffectKind.READ else AccessKind.WRITE
    value = effect.value if isinstance(effect.value, SSAValue) else None
    window = ANYWHERE
    if forms is not None and value is not None:
        if type(op) is BindOp:
            window = slot_window(op, forms)
        elif (
            _accesses_a_window(type(op))
            and value is cast(TensorWindowAccess, op).accessed_tensor
        ):
            window = access_window(cast(TensorWindowAccess, op), forms)
    return MemoryAccess(kind, effect.resource, value, window)


def _seen_from_outside(
    access: MemoryAccess, is_inner: Callable[[SSAValue], bool]
) -> MemoryAccess:
    """
    An access of an op in a block of an op, as seen from outside that op: the
    offsets that depend on values defined inside it (`is_inner`) unknown.
    The access is already seen from outside the op in the block, so (the IR
    being in SSA form) only values defined directly in its blocks are left to
    hide.
    """
    window = access.window.hiding(is_inner)
    if window is access.window:
        return access
    return MemoryAccess(access.kind, access.resource, access.value, window)
