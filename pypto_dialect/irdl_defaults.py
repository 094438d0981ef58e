"""The properties and attributes IRDL gives an op that lacks them."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache

from xdsl.ir import Attribute, Operation
from xdsl.irdl import AttributeDef, IRDLOperation, OptionalDef, PropertyDef


@cache
def irdl_defaults(
    cls: type[Operation],
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """
    The properties and attributes `IRDLOperation.__post_init__` fills in on
    an op of `cls` that lacks them: the non-optional ones with defaults.
    """
    if not issubclass(cls, IRDLOperation):
        return {}, {}
    definition = cls.get_irdl_definition()

    def filled(defs: Mapping[str, PropertyDef | AttributeDef]) -> dict[str, Attribute]:
        return {
            name: d.default_value
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        }

    return filled(definition.properties), filled(definition.attributes)
