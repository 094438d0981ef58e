// With --parsing-diagnostics pypto-opt behaves as xdsl-opt: the parse errors
// go to stdout and the run succeeds.

// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics > %t.xdsl
// RUN: pypto-opt %s --split-input-file --parsing-diagnostics | diff %t.xdsl -
// RUN: pypto-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func private @unknown_space(!pypto.tile<8xf32, ub>)

// -----

func.func private @rank_zero(!pypto.tensor<f32>)

// CHECK:      {{.*}}parsing_diagnostics.mlir:8:53
// CHECK-NEXT: func.func private @unknown_space(!pypto.tile<8xf32, ub>)
// CHECK:      Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.
// CHECK:      {{.*}}parsing_diagnostics.mlir:12:44
// CHECK-NEXT: func.func private @rank_zero(!pypto.tensor<f32>)
// CHECK:      tensor must have at least one dimension
