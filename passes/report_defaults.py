"""
The defaults of the pipeline report that `pypto-report --help` shows, in a
module that imports nothing, so that the help does not load the report.
"""

DEFAULT_PASSES = "lower-pipeline-loops,canonicalize-io-order"
"""The pipeline the advisor runs when none is given."""
MAX_STAGES = 8
"""The largest `stages` the advisor tries by default."""
