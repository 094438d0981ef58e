"""
The schedule model (engines, cost table, timeline, bounds) and the tools built on it:
the schedule report, the stages advisor and the sensitivity study.
"""
