"""
The defaults and bounds of the pipeline report that `pypto-report --help`
shows, in a module that imports nothing heavy, so that the help does not load
the report.
"""

from pypto_dialect.numbers import integer_text

DEFAULT_PASSES = "skew-cross-core-pipeline,lower-pipeline-loops,canonicalize-io-order"
"""The pipeline the advisor runs when none is given."""
MAX_STAGES = 8
"""The largest `stages` the advisor tries by default."""
MAX_ADVISED_STAGES = 64
"""
The largest `max_stages` the advisor accepts: candidate F lowers a copy of
the kernel with about F (static) to F^2/2 (dynamic) copies of the body, so
the work of N candidates grows as N^2 to N^3.
"""


MAX_ADVISED_OPS = 5_000
"""
The most ops the advisor's candidates of one pipeline hold together after
the passes (what it simulates): once past it, the larger stages are not
tried (a note says so). A candidate's copies grow with its stages (F(F+1)/2
for a dynamic trip count), so without it the 64 candidates of a 12-op body
took 11 to 21 s of CPU; with it, 0.4 to 1.3 s.
"""


MAX_ADVISED_DEPTH = 16
"""
The deepest nest of pipelines the advisor tries: lowering a nest copies
each level's body, quadratic in its depth (a candidate of a nest of 200
took 2 s of CPU).
"""
MAX_AUTO_STAGES_OPS = 50_000
"""
The most ops the advisor copies in one module (`auto-stages`,
`pypto-report --suggest-stages`): each candidate of a pipeline copies the
nest around it, so a deep nest costs its depth times its size (a nest of
200 pipelines took over 20 s of CPU). Past it, the later pipelines are not
advised (`auto-stages` keeps their written stages); a note says so.
"""


def max_stages_problem(max_stages: int) -> str | None:
    """Why the advisor cannot try up to `max_stages`, if it cannot."""
    if 1 <= max_stages <= MAX_ADVISED_STAGES:
        return None
    return (
        f"the advisor tries 1 to {MAX_ADVISED_STAGES} stages (its work grows as "
        f"the square of the largest), got {integer_text(max_stages)}"
    )


STRATEGIES: tuple[tuple[str, str], ...] = (
    ("cascade", "lower-pipeline-loops{remainder=cascade}"),
    ("loop", "lower-pipeline-loops{remainder=loop}"),
    ("slots", "lower-pipeline-to-slots,lower-pipeline-loops"),
)
"""
The strategies that lower a pipeline, by name: the passes that do it.
`pypto-report --strategies` runs each followed by `canonicalize-io-order`,
`python -m bench.remainder` times each. `slots` keeps one body where
`lower-pipeline-to-slots` admits the loop; a loop it declines is replicated
(with the default remainder, the cascade). A new strategy is one more entry.
"""
