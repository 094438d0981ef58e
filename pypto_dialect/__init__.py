"""The `pypto` xDSL dialect: PyPTO's tile level (tensors, tiles, tile ops, pipeline loops)."""

__version__ = "0.1.0"
