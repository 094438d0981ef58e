// `stages 1` is left as it is (nested pipelines in it are still lowered). The
// pass's own output has only `stages 1`, so running it twice equals once.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,lower-pipeline-loops --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s > %t
// RUN: xdsl-opt -p lower-pipeline-loops,lower-pipeline-loops --split-input-file %s | diff %t -
// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | xdsl-opt -p lower-pipeline-loops --split-input-file | diff %t -

func.func @untouched(%x: !pypto.tensor<1024xf32>, %init: index, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = pypto.pipeline %i = %c0 to %n step %c1 stages 1 overlap_stores = false double_buffer_acc = true iter_args(%a = %init) -> (index) {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
    %b = arith.addi %a, %i : index
    pypto.yield %b : index
  }
  func.return %r : index
}

// CHECK-LABEL: func.func @untouched
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %r = pypto.pipeline %i = %c0 to %n step %c1 stages 1 overlap_stores = false double_buffer_acc = true iter_args(%a = %init) -> (index) {
// CHECK-NEXT:     %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
// CHECK-NEXT:     "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
// CHECK-NEXT:     %b = arith.addi %a, %i : index
// CHECK-NEXT:     pypto.yield %b : index
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return %r : index

// -----

// The outer `stages 1` loop stays, the inner `stages 2` one is lowered.
func.func @nested_in_stages_one(%x: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    pypto.pipeline %j = %c0 to %c4 step %c1 stages 2 {
      %t = pypto.tile.load %x[%i, %j] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x16xf32, vec>
      "test.op"(%t) : (!pypto.tile<16x16xf32, vec>) -> ()
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nested_in_stages_one
// CHECK:        pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
// CHECK-NEXT:     [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT:     pypto.pipeline [[J:%.*]] = %c0 to %c4 step [[C2]] stages 1 {
// CHECK-NEXT:       pypto.tile.load %x[%i, [[J]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:       "test.op"
// CHECK-NEXT:       [[J1:%.*]] = arith.addi [[J]], %c1 : index
// CHECK-NEXT:       pypto.tile.load %x[%i, [[J1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:       "test.op"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
