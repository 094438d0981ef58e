// Static bounds: T = ceil((ub - lb) / step) iterations, M = T / F of them in a
// `stages 1` main loop with step F*step, the R = T % F others flattened after
// it with constant indices.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s

// T = 8 is a multiple of F = 4: one main loop up to the original bound, no
// remainder. Copy k runs at %i + k; unused ops are kept (no DCE).
func.func @divisible(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %unused = arith.addi %i, %i : index
    pypto.tile.store %t, %out[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @divisible
// CHECK:      %c0 = arith.constant 0 : index
// CHECK-NEXT: %c1 = arith.constant 1 : index
// CHECK-NEXT: %c8 = arith.constant 8 : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: [[C3:%.*]] = arith.constant 3 : index
// CHECK-NEXT: [[C4:%.*]] = arith.constant 4 : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %c0 to %c8 step [[C4]] stages 1 {
// CHECK-NEXT:   [[T0:%.*]] = pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   {{%.*}} = arith.addi [[I]], [[I]] : index
// CHECK-NEXT:   pypto.tile.store [[T0]], %out[[[I]]]
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c1 : index
// CHECK-NEXT:   [[T1:%.*]] = pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   {{%.*}} = arith.addi [[I1]], [[I1]] : index
// CHECK-NEXT:   pypto.tile.store [[T1]], %out[[[I1]]]
// CHECK-NEXT:   [[I2:%.*]] = arith.addi [[I]], [[C2]] : index
// CHECK-NEXT:   [[T2:%.*]] = pypto.tile.load %x[[[I2]]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:   {{%.*}} = arith.addi [[I2]], [[I2]] : index
// CHECK-NEXT:   pypto.tile.store [[T2]], %out[[[I2]]]
// CHECK-NEXT:   [[I3:%.*]] = arith.addi [[I]], [[C3]] : index
// CHECK-NEXT:   [[T3:%.*]] = pypto.tile.load %x[[[I3]]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// CHECK-NEXT:   {{%.*}} = arith.addi [[I3]], [[I3]] : index
// CHECK-NEXT:   pypto.tile.store [[T3]], %out[[[I3]]]
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// T = 10, F = 4: the main loop covers [0, 8), copies at 8 and 9 follow it.
func.func @remainder(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  pypto.pipeline %i = %c0 to %c10 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @remainder
// CHECK-DAG:  [[C8:%.*]] = arith.constant 8 : index
// CHECK-DAG:  [[C2:%.*]] = arith.constant 2 : index
// CHECK-DAG:  [[C3:%.*]] = arith.constant 3 : index
// CHECK-DAG:  [[C4:%.*]] = arith.constant 4 : index
// CHECK:      pypto.pipeline [[I:%.*]] = %c0 to [[C8]] step [[C4]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   arith.addi [[I]], %c1
// CHECK-NEXT:   pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   arith.addi [[I]], [[C2]]
// CHECK-NEXT:   pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   arith.addi [[I]], [[C3]]
// CHECK-NEXT:   pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<0:3>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: [[T8:%.*]] = pypto.tile.load %x[[[C8]]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT: "test.op"([[T8]])
// CHECK-NEXT: [[C9:%.*]] = arith.constant 9 : index
// CHECK-NEXT: [[T9:%.*]] = pypto.tile.load %x[[[C9]]] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CHECK-NEXT: "test.op"([[T9]])
// CHECK-NEXT: func.return

// -----

// T == F: the main loop runs once, nothing follows it.
func.func @trip_equals_stages(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @trip_equals_stages
// CHECK:      pypto.pipeline [[I:%.*]] = %c0 to %c2 step %c2 stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c1
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// T = 3 < F = 4: no loop at all, three flattened copies at 0, 1, 2 (group 0).
func.func @trip_below_stages(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %c0 to %c3 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @trip_below_stages
// CHECK:      %c3 = arith.constant 3 : index
// CHECK-NEXT: pypto.tile.load %x[%c0] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT: "test.op"
// CHECK-NEXT: pypto.tile.load %x[%c1] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT: "test.op"
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: pypto.tile.load %x[[[C2]]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT: "test.op"
// CHECK-NEXT: func.return
// CHECK-NOT:  pypto.pipeline

// -----

// T == 0 (here ub < lb): a plain scf.for with the body unchanged, untagged.
func.func @zero_trip(%x: !pypto.tensor<1024xf32>, %init: index) -> index {
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %c3 = arith.constant 3 : index
  %r = pypto.pipeline %i = %c5 to %c3 step %c1 stages 4 iter_args(%a = %init) -> (index) {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
    %b = arith.addi %a, %i : index
    pypto.yield %b : index
  }
  func.return %r : index
}

// CHECK-LABEL: func.func @zero_trip
// CHECK:      [[R:%.*]] = scf.for [[I:%.*]] = %c5 to %c3 step %c1 iter_args([[A:%.*]] = %init) -> (index) {
// CHECK-NEXT:   [[T:%.*]] = pypto.tile.load %x[[[I]]] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
// CHECK-NEXT:   "test.op"([[T]])
// CHECK-NEXT:   [[B:%.*]] = arith.addi [[A]], [[I]] : index
// CHECK-NEXT:   scf.yield [[B]] : index
// CHECK-NEXT: }
// CHECK-NEXT: func.return [[R]] : index

// -----

// Non-unit step: copies at %i and %i + 4, main step 8. T = ceil(18 / 4) = 5,
// so one copy at 16 follows the main loop over [0, 16).
func.func @non_unit_step(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c18 = arith.constant 18 : index
  pypto.pipeline %i = %c0 to %c18 step %c4 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @non_unit_step
// CHECK:      [[C16:%.*]] = arith.constant 16 : index
// CHECK-NEXT: [[C8:%.*]] = arith.constant 8 : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %c0 to [[C16]] step [[C8]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c4 : index
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: pypto.tile.load %x[[[C16]]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT: "test.op"
// CHECK-NEXT: func.return

// -----

// ub - lb = 15 is not a multiple of the step, but T = 4 is a multiple of F:
// the main loop keeps the original bound (its last iteration is 12 < 15).
func.func @partial_step_no_remainder(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c15 = arith.constant 15 : index
  pypto.pipeline %i = %c0 to %c15 step %c4 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @partial_step_no_remainder
// CHECK:      [[C8:%.*]] = arith.constant 8 : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %c0 to %c15 step [[C8]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]]
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c4 : index
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]]
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// A negative lower bound: T = 3 from -3 by 2 (-3, -1, 1); main loop over
// [-3, 1), one copy at 1.
func.func @negative_lb(%x: !pypto.tensor<1024xf32>) {
  %cm3 = arith.constant -3 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %cm3 to %c3 step %c2 stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @negative_lb
// CHECK:      [[C1:%.*]] = arith.constant 1 : index
// CHECK-NEXT: [[C4:%.*]] = arith.constant 4 : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %cm3 to [[C1]] step [[C4]] stages 1 {
// CHECK-NEXT:   "test.op"([[I]])
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c2 : index
// CHECK-NEXT:   "test.op"([[I1]])
// CHECK-NEXT: }
// CHECK-NEXT: "test.op"([[C1]])
// CHECK-NEXT: func.return
