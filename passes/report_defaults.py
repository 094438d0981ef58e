"""
The defaults of the pipeline report that `pypto-report --help` shows, in a
module that imports nothing, so that the help does not load the report.
"""

DEFAULT_PASSES = "lower-pipeline-loops,canonicalize-io-order"
"""The pipeline the advisor runs when none is given."""
MAX_STAGES = 8
"""The largest `stages` the advisor tries by default."""
STRATEGIES: tuple[tuple[str, str], ...] = (
    ("cascade", "lower-pipeline-loops{remainder=cascade}"),
    ("loop", "lower-pipeline-loops{remainder=loop}"),
)
"""
The strategies that lower a pipeline, by name: the passes that do it.
`pypto-report --strategies` runs each followed by `canonicalize-io-order`,
`python -m bench.remainder` times each; a new strategy (the slots of
`lower-pipeline-to-slots`, run before `lower-pipeline-loops`) is one more entry.
"""
