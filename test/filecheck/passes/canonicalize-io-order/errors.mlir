// RUN: xdsl-opt -p canonicalize-io-order --verify-diagnostics --split-input-file %s | filecheck %s

// A pipeline with more than one stage has not been lowered: the pass refuses
// it before changing anything (the body keeps its order).

// CHECK:      pypto.tile.store
// CHECK-NEXT: %b = "pypto.tile.load"
// CHECK:      pypto.pipeline with stages 2 is not lowered yet: run lower-pipeline-loops first
func.func @not_lowered(%x: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %a, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  }
  pypto.pipeline %j = %c0 to %c4 step %c1 stages 2 {
    "test.op"(%j) : (index) -> ()
  }
  func.return
}

// -----

// Nested inside a lowered loop, too.

// CHECK: pypto.pipeline with stages 3 is not lowered yet: run lower-pipeline-loops first
func.func @nested_not_lowered() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    pypto.pipeline %j = %c0 to %c4 step %c1 stages 3 {
      "test.op"(%j) : (index) -> ()
    }
  }
  func.return
}
