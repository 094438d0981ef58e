"""lit configuration: FileCheck tests of the dialect and the passes (under test/)."""

import os
import sys

import lit.formats

# `config` is injected by lit.
config = globals()["config"]

config.name = "pypto-dialect"
config.test_format = lit.formats.ShTest()
config.suffixes = [".mlir"]
config.test_source_root = os.path.dirname(__file__)
config.excludes = [
    ".venv",
    "venv",
    "examples",
    "bench",
    "docs",
    "build",
    "Output",
    "lit.cfg.py",
]

# The tools (xdsl-opt, pypto-opt, pypto-run, filecheck) of the environment that
# runs lit, without needing an activated virtual environment.
config.environment["PATH"] = os.pathsep.join(
    (
        os.path.join(sys.prefix, "bin"),
        config.environment.get("PATH", os.environ["PATH"]),
    )
)
config.environment["PYTHONWARNINGS"] = "error::DeprecationWarning"
# The door to xDSL's internals: PYPTO_XDSL_PUBLIC=1 runs the tests on xDSL's
# public API (pypto_dialect.xdsl_internals).
if "PYPTO_XDSL_PUBLIC" in os.environ:
    config.environment["PYPTO_XDSL_PUBLIC"] = os.environ["PYPTO_XDSL_PUBLIC"]

examples = os.path.join(os.path.dirname(__file__), "examples")
config.substitutions.append(("%examples", examples))
# Print, then parse the printed form back (custom or generic).
config.substitutions.append(
    ("%roundtrip-generic", "xdsl-opt --print-op-generic | xdsl-opt")
)
config.substitutions.append(("%roundtrip", "xdsl-opt | xdsl-opt"))
