"""
The orders of `canonicalize-io-order`: `category` (the priority classes), `engine`
(per-engine tiers, loads run ahead) and `modelled` (chosen on the schedule model).
"""
