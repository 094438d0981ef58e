"""
Benchmarks of `lower-pipeline-loops` and `canonicalize-io-order`, run as
`python -m bench` from the repository root (see `docs/performance.md`).
"""
