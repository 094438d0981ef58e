"""
A faster IRDL verifier for the dialect's ops, with xDSL's diagnostics.

xDSL checks every op against its definition generically (`OpDef.verify`):
per op it re-derives the layout of the operands, results, regions and
successors from the definition and passes each type through range
constraints. On a lowered module that is most of the verifier's time, and
`xdsl-opt` verifies after every pass. `pypto_op_definition` compiles each
definition once into a flat test: the lengths of the layout, and per element
an `isinstance` (`BaseAttr`), an equality (`EqAttrConstraint`), nothing
(`AnyAttr`), the same for the parameters (`ParamAttrConstraint`), equal
occurrences of a `VarConstraint` of single operands and results, or else the
constraint's own `verify` (an optional operand or result is a variadic one
of at most one element).

The test only accepts: when it fails, xDSL's generic verifier runs and raises
its own diagnostic, word for word. A definition the compiler does not cover
(several variadic or optional operand or result definitions of a kind,
segment sizes, successors, variadic regions, variables in ranges,
parameters, properties or regions) keeps the generic verifier. `test/unit/test_fast_verify.py` checks
that both raise the same diagnostics and that the test passes on every op
the generic verifier accepts.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

from xdsl.ir import Attribute, Operation, ParametrizedAttribute
from xdsl.irdl import (
    AnyAttr,
    AttrConstraint,
    BaseAttr,
    EqAttrConstraint,
    EqIntConstraint,
    IRDLOperation,
    OpDef,
    OptionalDef,
    OptPropertyDef,
    ParamAttrConstraint,
    RangeConstraint,
    RangeLengthConstraint,
    RangeOf,
    SingleBlockRegionDef,
    VarConstraint,
    VariadicDef,
    irdl_op_definition,
)
from xdsl.irdl.constraints import VerificationContext
from xdsl.irdl.operations import OperandDef, OptAttributeDef, ResultDef
from xdsl.traits import OpTrait
from xdsl.utils.exceptions import VerifyException

from pypto_dialect.xdsl_internals import fast_paths_enabled

_OpT = TypeVar("_OpT", bound=IRDLOperation)

_Test = Callable[[Attribute], bool]
"""Whether an attribute satisfies a constraint."""


class _NotCompiled(Exception):
    """A definition the compiler does not cover: keep the generic verifier."""


def _accept(_: Attribute) -> bool:
    return True


def _attr_test(constr: AttrConstraint) -> _Test:
    """The test of an attribute constraint without variables."""
    if constr.variables():
        raise _NotCompiled
    if isinstance(constr, AnyAttr):
        return _accept
    if isinstance(constr, BaseAttr):
        base: type[Attribute] = constr.attr
        return lambda attr: isinstance(attr, base)
    if isinstance(constr, EqAttrConstraint):
        expected: Attribute = constr.attr
        return lambda attr: attr == expected
    if isinstance(constr, ParamAttrConstraint):
        return _param_attr_test(cast(ParamAttrConstraint[Any], constr))
    return lambda attr: _satisfies(constr, attr)


def _param_attr_test(constr: ParamAttrConstraint[Any]) -> _Test:
    base: type[ParametrizedAttribute] = constr.base_attr
    params: tuple[AttrConstraint[Attribute], ...] = constr.param_constrs
    tests = tuple(_attr_test(param) for param in params)

    def test(attr: Attribute) -> bool:
        if not isinstance(attr, base):
            return False
        parameters = attr.parameters
        return len(parameters) == len(tests) and all(
            param_test(param)
            for param_test, param in zip(tests, parameters, strict=True)
        )

    return test


def _satisfies(constr: AttrConstraint, attr: Attribute) -> bool:
    try:
        constr.verify(attr, VerificationContext())
    except VerifyException:
        return False
    return True


def _element_test(definition: OperandDef | ResultDef) -> tuple[_Test, str | None]:
    """
    The test of each element of a single or variadic definition, and
    the constraint variable a single definition binds (all its occurrences in
    the op must be equal).
    """
    constr: RangeConstraint[Attribute] = definition.constr
    if isinstance(definition, VariadicDef):
        if isinstance(constr, RangeOf):
            return _attr_test(constr.constr), None
    elif (
        isinstance(constr, RangeLengthConstraint)
        and constr.length == EqIntConstraint(1)
        and isinstance(constr.constraint, RangeOf)
    ):
        element: AttrConstraint[Attribute] = constr.constraint.constr
        if isinstance(element, VarConstraint):
            inner: AttrConstraint[Attribute] = element.constraint
            return _attr_test(inner), element.name
        return _attr_test(element), None
    raise _NotCompiled


class _ListTest:
    """
    The test of the types of an operand or result list: the definitions
    before the one variadic (or optional) one, if any, it, and those after.
    """

    def __init__(self, definitions: Sequence[OperandDef | ResultDef]):
        variadic = [i for i, d in enumerate(definitions) if isinstance(d, VariadicDef)]
        if len(variadic) > 1:
            raise _NotCompiled
        split = variadic[0] if variadic else len(definitions)
        before = [_element_test(d) for d in definitions[:split]]
        after = [_element_test(d) for d in definitions[split + 1 :]]
        self.before = tuple(test for test, _ in before)
        self.after = tuple(test for test, _ in after)
        self.fixed = len(before) + len(after)
        self.variadic = _element_test(definitions[split])[0] if variadic else None
        self.most = (
            self.fixed + 1
            if variadic and isinstance(definitions[split], OptionalDef)
            else None
        )
        """The most types when the variadic definition is an optional one."""
        # Variables by position: from the start before the variadic, from the end after.
        self.variables = tuple(
            (index, name) for index, (_, name) in enumerate(before) if name
        ) + tuple(
            (index - len(after), name) for index, (_, name) in enumerate(after) if name
        )

    def __call__(self, types: Sequence[Attribute], bound: dict[str, Attribute]) -> bool:
        """Whether `types` pass; binds the variables in `bound` (equal if bound)."""
        count = len(types)
        if self.variadic is None:
            if count != self.fixed:
                return False
        elif count < self.fixed or (self.most is not None and count > self.most):
            return False
        before, after = len(self.before), len(self.after)
        if not all(test(t) for test, t in zip(self.before, types, strict=False)):
            return False
        if after and not all(
            test(t) for test, t in zip(self.after, types[count - after :], strict=True)
        ):
            return False
        variadic = self.variadic
        if not (
            variadic is None
            or variadic is _accept
            or all(variadic(t) for t in types[before : count - after])
        ):
            return False
        return all(
            bound.setdefault(name, types[index]) == types[index]
            for index, name in self.variables
        )


class CompiledDefinition:
    """The test of an op against its definition, apart from the traits."""

    def __init__(self, op_def: OpDef):
        if op_def.options or op_def.successors:
            raise _NotCompiled
        self.operands = _ListTest([d for _, d in op_def.operands])
        self.results = _ListTest([d for _, d in op_def.results])
        self.regions = tuple(_region_test(d) for _, d in op_def.regions)
        self.properties = tuple(
            (name, isinstance(d, OptPropertyDef), _attr_test(d.constr))
            for name, d in op_def.properties.items()
        )
        self.property_names = frozenset(op_def.properties)
        self.attributes = tuple(
            (name, isinstance(d, OptAttributeDef), _attr_test(d.constr))
            for name, d in op_def.attributes.items()
        )
        self._op_def = op_def
        self._traits: tuple[OpTrait, ...] | None = None

    @property
    def traits(self) -> tuple[OpTrait, ...]:
        """The traits that verify something (read on first use: traits may be lazy)."""
        if self._traits is None:
            self._traits = tuple(
                trait
                for trait in self._op_def.traits
                if type(trait).verify is not OpTrait.verify
            )
        return self._traits

    def verify(self, op: Operation) -> None:
        """What `OpDef.verify` does, through the test when it passes."""
        if not self.accepts(op):
            self._op_def.verify(op)
            return
        for trait in self.traits:
            trait.verify(op)

    def accepts(self, op: Operation) -> bool:
        """Whether `op` passes the test (its traits aside)."""
        if op.successors or len(op.regions) != len(self.regions):
            return False
        bound: dict[str, Attribute] = {}
        if not self.operands([v.type for v in op.operands], bound):
            return False
        if not self.results([r.type for r in op.results], bound):
            return False
        for region, entry_test in zip(op.regions, self.regions, strict=True):
            blocks = region.blocks
            if len(blocks) != 1 or not all(entry_test(t) for t in blocks[0].arg_types):
                return False
        properties = op.properties
        if not properties.keys() <= self.property_names:
            return False
        return _has_all(properties, self.properties) and _has_all(
            op.attributes, self.attributes
        )


def _has_all(
    attrs: dict[str, Attribute], expected: Sequence[tuple[str, bool, _Test]]
) -> bool:
    for name, optional, test in expected:
        attr = attrs.get(name)
        if attr is None:
            if not optional:
                return False
        elif not test(attr):
            return False
    return True


def _region_test(definition: Any) -> _Test:
    """The test of each entry argument type of a single-block region."""
    if type(definition) is not SingleBlockRegionDef:
        raise _NotCompiled
    entry_args: RangeConstraint = definition.entry_args
    if not isinstance(entry_args, RangeOf):
        raise _NotCompiled
    return _attr_test(entry_args.constr)


_COMPILED: dict[type[Operation], CompiledDefinition] = {}


def compiled_definition(op_type: type[Operation]) -> CompiledDefinition | None:
    """The compiled definition of an op class, None when it keeps the generic verifier."""
    return _COMPILED.get(op_type)


def compile_definition(op_def: OpDef) -> CompiledDefinition | None:
    """The compiled test of any definition, None when the compiler does not cover it."""
    try:
        return CompiledDefinition(op_def)
    except _NotCompiled:
        return None


def pypto_op_definition(cls: type[_OpT]) -> type[_OpT]:
    """
    `irdl_op_definition`, with the compiled test of the definition in front of
    xDSL's generic verifier (which still raises every diagnostic); IRDL's
    verifier alone when the fast paths are off (`xdsl_internals`).
    """
    if not fast_paths_enabled():
        return irdl_op_definition(cls)
    custom_verify = getattr(cls, "verify_", None)
    if custom_verify is Operation.verify_:
        custom_verify = None
    cls = irdl_op_definition(cls)
    compiled = compile_definition(cls.get_irdl_definition())
    if compiled is None:
        return cls
    _COMPILED[cls] = compiled

    def verify_(self: IRDLOperation) -> None:
        compiled.verify(self)
        if custom_verify is not None:
            custom_verify(self)

    cls.verify_ = verify_  # pyright: ignore[reportAttributeAccessIssue]
    return cls
