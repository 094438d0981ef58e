// Dynamic bounds: the trip count is computed at run time (clamped at 0), a
// `stages 1` main loop runs up to %unroll_main_end, and an `scf.if` cascade on
// %unroll_rem (counted in iterations) runs the 1 .. F-1 remaining ones.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,lower-pipeline-loops --split-input-file %s | filecheck %s

// Dynamic ub, step 1: trip = max(ub - lb, 0), no rounding. Branch `rem == k`
// holds k copies at %unroll_main_end + j; no branch for rem == 0. The regions
// take groups main loop first, then the branch with the most copies.
func.func @dynamic_ub(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_ub
// CHECK:      %unroll_diff = arith.subi %n, %c0 : index
// CHECK-NEXT: %unroll_trip = arith.maxsi %unroll_diff, %c0 : index
// CHECK-NEXT: [[C4:%.*]] = arith.constant 4 : index
// CHECK-NEXT: %unroll_main_iters = arith.floordivsi %unroll_trip, [[C4]] : index
// CHECK-NEXT: %unroll_main_span = arith.muli %unroll_main_iters, [[C4]] : index
// CHECK-NEXT: %unroll_main_end = arith.addi %c0, %unroll_main_span : index
// CHECK-DAG:  [[C2:%.*]] = arith.constant 2 : index
// CHECK-DAG:  [[C3:%.*]] = arith.constant 3 : index
// CHECK:      pypto.pipeline [[I:%.*]] = %c0 to %unroll_main_end step [[C4]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c1 : index
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I2:%.*]] = arith.addi [[I]], [[C2]] : index
// CHECK-NEXT:   pypto.tile.load %x[[[I2]]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I3:%.*]] = arith.addi [[I]], [[C3]] : index
// CHECK-NEXT:   pypto.tile.load %x[[[I3]]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: %unroll_main_trip = arith.muli %unroll_main_iters, [[C4]] : index
// CHECK-NEXT: %unroll_rem = arith.subi %unroll_trip, %unroll_main_trip : index
// CHECK-NEXT: %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, %c1 : index
// CHECK-NEXT: scf.if %unroll_rem_eq1 {
// CHECK-NEXT:   pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<3:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: } else {
// CHECK-NEXT:   %unroll_rem_eq2 = arith.cmpi eq, %unroll_rem, [[C2]] : index
// CHECK-NEXT:   scf.if %unroll_rem_eq2 {
// CHECK-NEXT:     pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<2:0>}
// CHECK-NEXT:     "test.op"
// CHECK-NEXT:     [[R21:%.*]] = arith.addi %unroll_main_end, %c1 : index
// CHECK-NEXT:     pypto.tile.load %x[[[R21]]] {pypto.pipeline_membership = #pypto.membership<2:1>}
// CHECK-NEXT:     "test.op"
// CHECK-NEXT:   } else {
// CHECK-NEXT:     %unroll_rem_eq3 = arith.cmpi eq, %unroll_rem, [[C3]] : index
// CHECK-NEXT:     scf.if %unroll_rem_eq3 {
// CHECK-NEXT:       pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:       "test.op"
// CHECK-NEXT:       [[R31:%.*]] = arith.addi %unroll_main_end, %c1 : index
// CHECK-NEXT:       pypto.tile.load %x[[[R31]]] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CHECK-NEXT:       "test.op"
// CHECK-NEXT:       [[R32:%.*]] = arith.addi %unroll_main_end, [[C2]] : index
// CHECK-NEXT:       pypto.tile.load %x[[[R32]]] {pypto.pipeline_membership = #pypto.membership<1:2>}
// CHECK-NEXT:       "test.op"
// CHECK-NEXT:     }
// CHECK-NEXT:   }
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Dynamic lb and ub, step 3 > 1: trip = max((ub - lb + 2) floordiv 3, 0), the
// main loop steps by F*step = 6, copies at %i + 3 and %unroll_main_end.
func.func @dynamic_lb_ub_step(%x: !pypto.tensor<1024xf32>, %lb: index, %ub: index) {
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %lb to %ub step %c3 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_lb_ub_step
// CHECK:      %unroll_diff = arith.subi %ub, %lb : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: %unroll_diff_rounded = arith.addi %unroll_diff, [[C2]] : index
// CHECK-NEXT: %unroll_iters = arith.floordivsi %unroll_diff_rounded, %c3 : index
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : index
// CHECK-NEXT: %unroll_trip = arith.maxsi %unroll_iters, [[C0]] : index
// CHECK-NEXT: %unroll_main_iters = arith.floordivsi %unroll_trip, [[C2]] : index
// CHECK-NEXT: [[C6:%.*]] = arith.constant 6 : index
// CHECK-NEXT: %unroll_main_span = arith.muli %unroll_main_iters, [[C6]] : index
// CHECK-NEXT: %unroll_main_end = arith.addi %lb, %unroll_main_span : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %lb to %unroll_main_end step [[C6]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c3 : index
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: %unroll_main_trip = arith.muli %unroll_main_iters, [[C2]] : index
// CHECK-NEXT: %unroll_rem = arith.subi %unroll_trip, %unroll_main_trip : index
// CHECK-NEXT: [[C1:%.*]] = arith.constant 1 : index
// CHECK-NEXT: %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, [[C1]] : index
// CHECK-NEXT: scf.if %unroll_rem_eq1 {
// CHECK-NEXT:   pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// Dynamic lb with a constant ub: still the dynamic lowering.
func.func @dynamic_lb(%x: !pypto.tensor<1024xf32>, %lb: index) {
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %lb to %c8 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_lb
// CHECK:      %unroll_diff = arith.subi %c8, %lb : index
// CHECK-NEXT: [[C0:%.*]] = arith.constant 0 : index
// CHECK-NEXT: %unroll_trip = arith.maxsi %unroll_diff, [[C0]] : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: %unroll_main_iters = arith.floordivsi %unroll_trip, [[C2]] : index
// CHECK-NEXT: %unroll_main_span = arith.muli %unroll_main_iters, [[C2]] : index
// CHECK-NEXT: %unroll_main_end = arith.addi %lb, %unroll_main_span : index
// CHECK-NEXT: pypto.pipeline {{%.*}} = %lb to %unroll_main_end step [[C2]] stages 1 {
// CHECK:      %unroll_rem = arith.subi %unroll_trip, %unroll_main_trip : index
// CHECK-NEXT: %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, %c1 : index
// CHECK-NEXT: scf.if %unroll_rem_eq1 {
// CHECK-NEXT:   pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: func.return
