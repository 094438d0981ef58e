"""
`UniqueNames` and the target's `Names`: the first free `base`, `base_1`,
... as a plain search from 1 gives, in probes linear in the names given out.
"""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pypto_dialect.dsl.naming import Names, python_base
from pypto_dialect.unique_names import UniqueNames


class CountingSet(set[str]):
    """A set that counts its membership tests."""

    probes = 0

    def __contains__(self, name: object) -> bool:
        self.probes += 1
        return super().__contains__(name)


def first_free(taken: set[str], base: str) -> str:
    """The reference: `base`, `base_1`, ... searched from the start."""
    name, count = base, 0
    while name in taken:
        count += 1
        name = f"{base}_{count}"
    return name


VALUES = 2_000


def test_names_of_one_base_cost_linear_probes():
    taken = CountingSet()
    names = UniqueNames(taken)
    given_out = [names.unique("t") for _ in range(VALUES)]
    assert given_out[:3] == ["t", "t_1", "t_2"]
    assert len(set(given_out)) == VALUES
    # A search from 1 each time makes VALUES^2 / 2 (2,000,000) probes.
    assert taken.probes <= 2 * VALUES


def test_the_targets_names_of_one_hint_cost_linear_probes():
    taken = CountingSet()
    names = Names(taken)
    for _ in range(VALUES):
        names.new("t_7", "v")  # one base: the suffix of a hint is dropped
    claimed = [names.symbol(f"k{index}", "K") for index in range(VALUES)]
    assert claimed[-1] == f"k{VALUES - 1}"
    assert taken.probes <= 4 * VALUES


@given(
    st.lists(
        st.tuples(
            st.booleans(),
            st.sampled_from(["t", "t_1", "t_2", "t_3", "a", "a_1", "for", "1x", None]),
        ),
        max_size=40,
    )
)
def test_names_are_those_of_a_search_from_the_start(
    steps: list[tuple[bool, str | None]],
):
    """Any mix of new names and claimed symbols: the names of the plain search."""
    names, taken = Names(), set[str]()
    for is_symbol, hint in steps:
        if is_symbol and hint is not None and hint.isidentifier() and hint not in taken:
            expected = hint if hint != "for" else first_free(taken, "for_")
        else:
            expected = first_free(taken, python_base(hint, "v"))
        got = names.symbol(hint, "v") if is_symbol else names.new(hint, "v")
        assert got == expected
        taken.add(expected)
