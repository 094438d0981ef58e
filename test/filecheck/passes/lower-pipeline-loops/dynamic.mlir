// Dynamic bounds: a `stages 1` main loop runs up to %unroll_main_end, computed
// at run time without ever overflowing (no `ub - lb`: the groups of F
// iterations that start below ub - (F-1)*step, found from residues mod
// F*step, in 6 ops, or 12 when F*step > 2^62), and an `scf.if` cascade on %unroll_rem (counted in iterations) runs
// the 1 .. F-1 remaining ones. `bad-input/dynamic_bounds_at_the_extremes.mlir`
// runs these loops at the ends of the index range.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,lower-pipeline-loops --split-input-file %s | filecheck %s

// Dynamic ub, step 1, F = 4: groups start below %n - 3 (clamped so that it
// cannot underflow); the main loop ends at the first index of the loop at or
// past that limit, at most at %n; %unroll_rem = %n - %unroll_main_end. Branch
// `rem == k` holds k copies at %unroll_main_end + j; no branch for rem == 0.
// The regions take groups main loop first, then the branch with the most copies.
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
// CHECK:      %unroll_start = arith.minsi %c0, %n : index
// CHECK-NEXT: [[MIN3:%.*]] = arith.constant -9223372036854775805 : index
// CHECK-NEXT: %unroll_ub_clamped = arith.maxsi %n, [[MIN3]] : index
// CHECK-NEXT: [[C3:%.*]] = arith.constant 3 : index
// CHECK-NEXT: %unroll_group_limit = arith.subi %unroll_ub_clamped, [[C3]] : index
// CHECK-NEXT: %unroll_room = arith.subi %n, %unroll_group_limit : index
// CHECK-NEXT: [[C4:%.*]] = arith.constant 4 : index
// CHECK-NEXT: %unroll_start_rem = arith.remsi %unroll_start, [[C4]] : index
// CHECK-NEXT: %unroll_limit_rem = arith.remsi %unroll_group_limit, [[C4]] : index
// CHECK-NEXT: %unroll_offset = arith.subi %unroll_start_rem, %unroll_limit_rem : index
// CHECK-NEXT: %unroll_offset_rem = arith.remsi %unroll_offset, [[C4]] : index
// CHECK-NEXT: %unroll_offset_shifted = arith.addi %unroll_offset_rem, [[C4]] : index
// CHECK-NEXT: %unroll_offset_mod = arith.remsi %unroll_offset_shifted, [[C4]] : index
// CHECK-NEXT: %unroll_tail = arith.minsi %unroll_offset_mod, %unroll_room : index
// CHECK-NEXT: %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %c0 to %unroll_main_end step [[C4]] stages 1 {
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
// CHECK-NEXT: %unroll_rem = arith.subi %unroll_room, %unroll_tail : index
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

// Dynamic lb and ub, step 3 > 1: the residues are mod F*step = 6, the main
// loop steps by 6, copies at %i + 3 and %unroll_main_end; the remainder
// %unroll_rem_span (at most (F-1)*step = 3) is rounded up to iterations.
func.func @dynamic_lb_ub_step(%x: !pypto.tensor<1024xf32>, %lb: index, %ub: index) {
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %lb to %ub step %c3 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_lb_ub_step
// CHECK:      %unroll_start = arith.minsi %lb, %ub : index
// CHECK-NEXT: [[MIN3:%.*]] = arith.constant -9223372036854775805 : index
// CHECK-NEXT: %unroll_ub_clamped = arith.maxsi %ub, [[MIN3]] : index
// CHECK-NEXT: %unroll_group_limit = arith.subi %unroll_ub_clamped, %c3 : index
// CHECK-NEXT: %unroll_room = arith.subi %ub, %unroll_group_limit : index
// CHECK-NEXT: [[C6:%.*]] = arith.constant 6 : index
// CHECK-NEXT: %unroll_start_rem = arith.remsi %unroll_start, [[C6]] : index
// CHECK-NEXT: %unroll_limit_rem = arith.remsi %unroll_group_limit, [[C6]] : index
// CHECK:      %unroll_offset_mod = arith.remsi %unroll_offset_shifted, [[C6]] : index
// CHECK-NEXT: %unroll_tail = arith.minsi %unroll_offset_mod, %unroll_room : index
// CHECK-NEXT: %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK-NEXT: pypto.pipeline [[I:%.*]] = %lb to %unroll_main_end step [[C6]] stages 1 {
// CHECK-NEXT:   pypto.tile.load %x[[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT:   [[I1:%.*]] = arith.addi [[I]], %c3 : index
// CHECK-NEXT:   pypto.tile.load %x[[[I1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: %unroll_rem_span = arith.subi %unroll_room, %unroll_tail : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK-NEXT: %unroll_rem_rounded = arith.addi %unroll_rem_span, [[C2]] : index
// CHECK-NEXT: %unroll_rem = arith.floordivsi %unroll_rem_rounded, %c3 : index
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
// CHECK:      %unroll_start = arith.minsi %lb, %c8 : index
// CHECK-NEXT: [[MIN1:%.*]] = arith.constant -9223372036854775807 : index
// CHECK-NEXT: %unroll_ub_clamped = arith.maxsi %c8, [[MIN1]] : index
// CHECK-NEXT: %unroll_group_limit = arith.subi %unroll_ub_clamped, %c1 : index
// CHECK-NEXT: %unroll_room = arith.subi %c8, %unroll_group_limit : index
// CHECK-NEXT: [[C2:%.*]] = arith.constant 2 : index
// CHECK:      %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK-NEXT: pypto.pipeline {{%.*}} = %lb to %unroll_main_end step [[C2]] stages 1 {
// CHECK:      %unroll_rem = arith.subi %unroll_room, %unroll_tail : index
// CHECK-NEXT: %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, %c1 : index
// CHECK-NEXT: scf.if %unroll_rem_eq1 {
// CHECK-NEXT:   pypto.tile.load %x[%unroll_main_end] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:   "test.op"
// CHECK-NEXT: }
// CHECK-NEXT: func.return

// -----

// F*step = 3 * (2^61 + 1) > 2^62: twice it would not fit, so each residue is
// taken to [0, F*step) before their difference (floordivsi, muli, subi), and
// the difference likewise.
func.func @dynamic_huge_step(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %step = arith.constant 2305843009213693953 : index
  pypto.pipeline %i = %c0 to %n step %step stages 3 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @dynamic_huge_step
// CHECK:      %unroll_room = arith.subi %n, %unroll_group_limit : index
// CHECK-NEXT: [[M:%.*]] = arith.constant 6917529027641081859 : index
// CHECK-NEXT: %unroll_start_rem = arith.remsi %unroll_start, [[M]] : index
// CHECK-NEXT: %unroll_start_wraps = arith.floordivsi %unroll_start_rem, [[M]] : index
// CHECK-NEXT: %unroll_start_shift = arith.muli %unroll_start_wraps, [[M]] : index
// CHECK-NEXT: %unroll_start_mod = arith.subi %unroll_start_rem, %unroll_start_shift : index
// CHECK-NEXT: %unroll_limit_rem = arith.remsi %unroll_group_limit, [[M]] : index
// CHECK-NEXT: %unroll_limit_wraps = arith.floordivsi %unroll_limit_rem, [[M]] : index
// CHECK-NEXT: %unroll_limit_shift = arith.muli %unroll_limit_wraps, [[M]] : index
// CHECK-NEXT: %unroll_limit_mod = arith.subi %unroll_limit_rem, %unroll_limit_shift : index
// CHECK-NEXT: %unroll_offset = arith.subi %unroll_start_mod, %unroll_limit_mod : index
// CHECK-NEXT: %unroll_offset_wraps = arith.floordivsi %unroll_offset, [[M]] : index
// CHECK-NEXT: %unroll_offset_shift = arith.muli %unroll_offset_wraps, [[M]] : index
// CHECK-NEXT: %unroll_offset_mod = arith.subi %unroll_offset, %unroll_offset_shift : index
// CHECK-NEXT: %unroll_tail = arith.minsi %unroll_offset_mod, %unroll_room : index
// CHECK-NEXT: %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK-NEXT: pypto.pipeline {{%.*}} = %c0 to %unroll_main_end step [[M]] stages 1 {
