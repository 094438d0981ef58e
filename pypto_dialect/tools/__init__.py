"""Console scripts: `pypto-opt` and `pypto-run`."""
