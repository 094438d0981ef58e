// An invalid type is a located parse error too (not a traceback, as it is for
// stock xdsl-opt with builtin types); the location counts lines of the whole
// file when the input is split.

// RUN: not pypto-opt %s --split-input-file 2> %t.err
// RUN: filecheck %s --input-file %t.err

func.func private @fine(!pypto.tensor<8xf32>)

// -----

func.func private @rank_zero(!pypto.tensor<f32>)

// CHECK-NOT:  Traceback
// CHECK:      {{.*}}invalid_type.mlir:12:44: error: tensor must have at least one dimension
// CHECK-NEXT: func.func private @rank_zero(!pypto.tensor<f32>)
// CHECK-NEXT:                                            ^^^
// CHECK-NOT:  Traceback
