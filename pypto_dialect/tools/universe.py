"""
The `xdsl.universe` entry point: makes `xdsl-opt` know our dialects and
passes. It lives with the tools, the one place that may use both packages
(`pypto_dialect` itself imports nothing from `passes`). Lazy factories only,
so importing it, as every xDSL tool does, stays cheap.
"""

from xdsl.universe import Universe

from passes import get_all_passes
from pypto_dialect.dialects import get_all_dialects

PYPTO_UNIVERSE = Universe(
    all_dialects=get_all_dialects(),
    all_passes=get_all_passes(),
)
