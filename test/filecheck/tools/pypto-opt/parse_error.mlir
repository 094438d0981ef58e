// Parse errors, including invalid type parameters, are `file:line:col: error:`
// lines on stderr with the source line; exit code 1, no traceback.

// RUN: not pypto-opt %s --split-input-file 2> %t.err
// RUN: filecheck %s --input-file %t.err
// RUN: not pypto-opt %s --split-input-file --print-op-generic 2>&1 | filecheck %s

func.func private @unknown_space(!pypto.tile<8xf32, ub>)

// CHECK-NOT:  Traceback
// CHECK:      {{.*}}parse_error.mlir:8:53: error: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.
// CHECK-NEXT: func.func private @unknown_space(!pypto.tile<8xf32, ub>)
// CHECK-NEXT:                                                     ^^
// CHECK-NOT:  Traceback
