"""The pypto-dialect passes: `lower-pipeline-loops` and `canonicalize-io-order`."""
