"""Rewrite mechanisms of the passes, each knowing nothing of a pass's policy."""
