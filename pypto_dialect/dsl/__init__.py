"""
PyPTO programs in and out: `parse_pypto` reads PyPTO's Python text (the
`@pl.program` classes PyPTO prints) into our IR, `print_pypto` prints a
module back as PyPTO text. See docs/pypto-dsl.md.
"""

from pypto_dialect.dsl.errors import ExportError
from pypto_dialect.dsl.frontend import parse_pypto
from pypto_dialect.dsl.target import print_pypto

__all__ = ["ExportError", "parse_pypto", "print_pypto"]
