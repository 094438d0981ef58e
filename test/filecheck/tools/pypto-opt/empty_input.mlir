// An input with nothing but whitespace and comments (this file, or nothing
// at all) is an empty module, as mlir-opt reads it; a PyPTO file without a
// @pl.program class is an error that says so.

// RUN: pypto-opt %s | filecheck %s
// RUN: printf '' | pypto-opt | filecheck %s
// RUN: pypto-opt %s -p lower-pipeline-loops,canonicalize-io-order | filecheck %s
// RUN: printf '' > %t.py && not pypto-opt %t.py 2>&1 | filecheck %s --check-prefix=PY -DFILE=%t.py
// RUN: printf 'import pypto.language as pl\n' > %t.py && not pypto-opt %t.py 2>&1 | filecheck %s --check-prefix=PY -DFILE=%t.py

// CHECK:      builtin.module {
// CHECK-NEXT: }

// PY:         [[FILE]]:1:1: error: no @pl.program class: a PyPTO program holds 'import pypto.language as pl' and @pl.program classes
