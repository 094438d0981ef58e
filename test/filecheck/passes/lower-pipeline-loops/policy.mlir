// The main loop keeps the policy properties (`overlap_stores`,
// `double_buffer_acc`) and the discardable attributes of the original loop.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s

func.func @static_policy(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  pypto.pipeline %i = %c0 to %c5 step %c1 stages 2 overlap_stores = false double_buffer_acc = true {
    "test.op"(%i) : (index) -> ()
  } {test.note = "kept"}
  func.return
}

// CHECK-LABEL: func.func @static_policy
// CHECK:       pypto.pipeline {{%.*}} = %c0 to {{%.*}} step {{%.*}} stages 1 overlap_stores = false double_buffer_acc = true {
// CHECK:       } {test.note = "kept"}

// -----

func.func @dynamic_policy(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 overlap_stores = false {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_policy
// CHECK:       pypto.pipeline {{%.*}} = %c0 to %unroll_main_end step {{%.*}} stages 1 overlap_stores = false {
