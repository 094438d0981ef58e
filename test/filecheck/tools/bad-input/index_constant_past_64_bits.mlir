// `index` is 64-bit in our tools (the interpreter, the lowering, the PyPTO
// frontend and target), but xDSL's IntegerAttr takes an index constant of
// any size: 2^64+1 once ran as 1, and a huge one crashed xDSL's printer.
// pypto-opt and pypto-run reject it at the constant; stock xdsl-opt accepts
// it: lower-pipeline-loops then rejects such a loop bound, and the PyPTO
// target such a constant.

// RUN: not pypto-opt %s 2>&1 | filecheck %s
// RUN: not pypto-run %s --entry f 2>&1 | filecheck %s
// RUN: not xdsl-opt %s -p lower-pipeline-loops 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not xdsl-opt %s -t pypto 2>&1 | filecheck %s --check-prefix=TARGET

func.func @f() -> index {
  %c = arith.constant 18446744073709551617 : index
  func.return %c : index
}

// CHECK:      index_constant_past_64_bits.mlir:14:3: error: 'arith.constant' op index constant 18446744073709551617 does not fit in a 64-bit index (-9223372036854775808 to 9223372036854775807)
// CHECK-NEXT: {{^}}  %c = arith.constant 18446744073709551617 : index
// CHECK-NOT:  Traceback
// TARGET:     has no PyPTO form: 18446744073709551617 does not fit in a 64-bit index (-9223372036854775808 to 9223372036854775807)
// TARGET-NOT: Traceback

func.func @loop(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ub = arith.constant 18446744073709551617 : index
  pypto.pipeline %i = %c0 to %ub step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

// PASS:       the upper bound 18446744073709551617 does not fit in a 64-bit index (-9223372036854775808 to 9223372036854775807)
// PASS-NOT:   Traceback
