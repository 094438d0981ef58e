"""
Hypothesis strategies for malformed pypto kernels: valid kernels, mutated.

`mutants()` draws a kernel from `bench.kernels.strategies.kernels()`, in its custom
or its generic printed form, and applies one to three mutations from
`MUTATIONS` (`GENERIC_MUTATIONS` for the generic form), and in a third of
the mutants one of `SYNTAX_MUTATIONS` last. Each mutation is a small
function `(text, draw) -> text`:
token edits (delete, duplicate, swap, replace), line edits (delete,
duplicate, move, a definition after its uses), SSA names replaced by other
or undefined ones, types, shapes and memory spaces replaced, integers
replaced by extreme values (the ends of `index`, past 64 bits, past the
4,300 digits Python converts), floats by NaNs (with a sign, a payload) and
infinities, `stages` changed, operands, results and properties of generic
ops dropped, added or given wrong values, discardable attributes added, ops
renamed, `scf.while` loops inserted (some endless), truncation, random
characters, a byte order mark, and deep nests of loops, attributes and
types. A quarter of the mutants also give an `index` parameter an extreme
value (`Mutant.index_args`, for the runs of `test_mutations.py`).

Many mutations keep the text parseable (values of the same type swapped,
lines moved, properties changed, extreme constants), so that a good share
of the mutants reach the verifier and the passes.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from io import StringIO

from hypothesis import event
from hypothesis import strategies as st
from mutation_helpers import pick
from mutation_vocabulary import EXTREME_INDEX_VALUES
from nest_mutations import deep_attribute, nest_loops
from op_mutations import (
    add_attribute,
    change_operand_count,
    change_result_count,
    insert_while,
    mutate_property,
)
from text_mutations import (
    define_after_use,
    delete_line,
    delete_token,
    duplicate_line,
    duplicate_token,
    insert_characters,
    move_line,
    prepend_byte_order_mark,
    replace_token,
    swap_tokens,
    truncate,
)
from value_mutations import (
    rename_op,
    replace_float,
    replace_integer,
    replace_memory_space,
    replace_shape,
    replace_ssa_name,
    replace_stages,
    replace_type,
)
from xdsl.parser import Parser
from xdsl.printer import Printer

from bench.kernels.strategies import kernels
from pypto_dialect.context import pypto_context

Mutation = Callable[[str, st.DrawFn], str]

_CONTEXT = pypto_context()


@dataclass(frozen=True)
class Mutant:
    """
    A mutated kernel, the names of the mutations applied, the source form,
    and values for the kernel's `index` parameters (by name, without `%`).
    """

    text: str
    mutations: tuple[str, ...]
    generic: bool
    index_args: dict[str, int]


MUTATIONS: tuple[Mutation, ...] = (
    replace_integer,
    replace_stages,
    add_attribute,
    replace_ssa_name,
    move_line,
    replace_type,
    replace_shape,
    replace_memory_space,
    rename_op,
    nest_loops,
    deep_attribute,
    replace_float,
    insert_while,
    define_after_use,
    prepend_byte_order_mark,
)
"""
The mutations of either form that often keep the text parseable; hypothesis
draws the first ones more often.
"""
GENERIC_MUTATIONS: tuple[Mutation, ...] = (
    mutate_property,
    change_operand_count,
    change_result_count,
    *MUTATIONS,
)
"""... and of the generic form: also of properties, operand and result lists."""
SYNTAX_MUTATIONS: tuple[Mutation, ...] = (
    delete_token,
    duplicate_token,
    swap_tokens,
    replace_token,
    delete_line,
    duplicate_line,
    truncate,
    insert_characters,
)
"""The mutations that mostly make a parse error: one at most, in a third of the mutants."""


def generic_form(text: str) -> str:
    """A valid kernel printed in generic form."""
    module = Parser(_CONTEXT, text).parse_module()
    stream = StringIO()
    Printer(stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


@st.composite
def mutants(draw: st.DrawFn, max_mutations: int = 3, max_stages: int = 4) -> Mutant:
    """
    A kernel of `kernels(max_stages)` with 1..`max_mutations` mutations, and
    sometimes one more of `SYNTAX_MUTATIONS`.
    """
    kernel = draw(kernels(max_stages=max_stages))
    generic = draw(st.booleans())
    text = generic_form(kernel.text) if generic else kernel.text
    chosen = [
        draw(st.sampled_from(GENERIC_MUTATIONS if generic else MUTATIONS))
        for _ in range(draw(st.integers(1, max_mutations)))
    ]
    if draw(st.integers(0, 2)) == 2:
        chosen.append(draw(st.sampled_from(SYNTAX_MUTATIONS)))
    names = [mutation.__name__ for mutation in chosen]
    for mutation in chosen:
        text = mutation(text, draw)
        event(f"mutation: {mutation.__name__}")
    index_args = dict(kernel.index_args)
    if index_args and draw(st.integers(0, 3)) == 3:
        name = pick(draw, sorted(index_args))
        index_args[name] = int(pick(draw, EXTREME_INDEX_VALUES))
        names.append(f"extreme_index_argument(%{name} = {index_args[name]})")
        event("mutation: extreme_index_argument")
    return Mutant(text, tuple(names), generic, index_args)
