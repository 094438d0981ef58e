"""
Hypothesis profiles, chosen by the `HYPOTHESIS_PROFILE` environment variable.

* `ci` (the default): derandomized, so every run draws the same examples; 75
  per property keep `test_properties.py` under 3 minutes on a 2-core machine.
* `campaign`: fresh random examples, 10,000 per property by default (or
  `PYPTO_CAMPAIGN_EXAMPLES`, to split a campaign over processes), no
  deadline, for a long search (`docs/testing.md` has the commands).
"""

import os

from hypothesis import HealthCheck, settings

_SLOW_IS_FINE = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile(
    "ci",
    max_examples=75,
    derandomize=True,
    deadline=None,
    suppress_health_check=_SLOW_IS_FINE,
    print_blob=True,
)
settings.register_profile(
    "campaign",
    max_examples=int(os.environ.get("PYPTO_CAMPAIGN_EXAMPLES", "10000")),
    deadline=None,
    suppress_health_check=_SLOW_IS_FINE,
    print_blob=True,
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
