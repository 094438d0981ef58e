// User errors are diagnostics on the offending op, reported before anything
// is rewritten (the annotated IR is the input IR).

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file --verify-diagnostics %s | filecheck %s

func.func @dynamic_step(%x: !pypto.tensor<1024xf32>, %step: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %step stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      step must be a compile-time integer constant
// CHECK:      "pypto.pipeline"(%c0, %c8, %step) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | step must be a compile-time integer constant

// -----

func.func @zero_step(%n: index) {
  %c0 = arith.constant 0 : index
  pypto.pipeline %i = %c0 to %n step %c0 stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      step cannot be zero
// CHECK:      "pypto.pipeline"(%c0, %n, %c0) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | step cannot be zero

// -----

func.func @negative_step() {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %cm1 = arith.constant -1 : index
  pypto.pipeline %i = %c8 to %c0 step %cm1 stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      negative steps are not supported (scf.for needs a positive step)
// CHECK:      "pypto.pipeline"(%c8, %c0, %cm1) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | negative steps are not supported (scf.for needs a positive step)

// -----

// The error of an inner loop is reported before the outer loop is touched.
func.func @nested_error(%step: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    pypto.pipeline %j = %c0 to %c4 step %step stages 2 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// CHECK:      step must be a compile-time integer constant
// CHECK:      "pypto.pipeline"(%c0, %c4, %c1) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^bb0(%i: index):
// CHECK-NEXT:   "pypto.pipeline"(%c0, %c4, %step) <{stages = 2 : i64}> ({
// CHECK-NEXT:   ^^^^^^^^^^^^^^^^---
// CHECK-NEXT:   | step must be a compile-time integer constant

// -----

func.func @bad_membership(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] {pypto.pipeline_membership = 3 : i64} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK:      pypto.pipeline_membership must be a #pypto.membership attribute, got 3 : i64
// CHECK:      %t = "pypto.tile.load"(%x, %i) {pypto.pipeline_membership = 3 : i64}
// CHECK-NEXT: ^^^^^^^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | pypto.pipeline_membership must be a #pypto.membership attribute, got 3 : i64

// -----

// `stages 1` loops are not replicated, so their step may be anything.
func.func @stages_one_dynamic_step(%step: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %step stages 1 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @stages_one_dynamic_step
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    pypto.pipeline %i = %c0 to %c8 step %step stages 1 {
