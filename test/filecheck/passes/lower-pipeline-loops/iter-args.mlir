// iter_args are threaded through the copies: copy 0 takes the loop's initial
// values (or the main loop's results), copy k the values copy k-1 yields; the
// original results are replaced by the last values.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s

// A scalar and a cube accumulator, static bounds with a remainder: T = 5,
// F = 2, main loop over [0, 4) then one copy at 4 seeded by its results.
func.func @static_tail(%a: !pypto.tensor<16x320xbf16>, %b: !pypto.tensor<320x64xbf16>, %c: !pypto.tensor<16x64xf32>) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<16x64xf32, acc>
  %sum, %acc = pypto.pipeline %k = %c0 to %c5 step %c1 stages 2 iter_args(%s = %c0, %partial = %init) -> (index, !pypto.tile<16x64xf32, acc>) {
    %l = pypto.tile.load %a[%c0, %k] : !pypto.tensor<16x320xbf16> -> !pypto.tile<16x64xbf16, left>
    %r = pypto.tile.load %b[%k, %c0] : !pypto.tensor<320x64xbf16> -> !pypto.tile<64x64xbf16, right>
    %next = pypto.tile.matmul_acc %partial, %l, %r : !pypto.tile<16x64xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x64xbf16, right>
    %s2 = arith.addi %s, %k : index
    pypto.yield %s2, %next : index, !pypto.tile<16x64xf32, acc>
  }
  pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<16x64xf32, acc>, !pypto.tensor<16x64xf32>
  func.return %sum : index
}

// CHECK-LABEL: func.func @static_tail
// CHECK:      %sum_main, %acc_main = pypto.pipeline [[K:%.*]] = %c0 to [[C4:%.*]] step [[C2:%.*]] stages 1 iter_args([[S:%.*]] = %c0, [[P:%.*]] = %init) -> (index, !pypto.tile<16x64xf32, acc>) {
// CHECK:        [[N0:%.*]] = pypto.tile.matmul_acc [[P]],
// CHECK-NEXT:   [[S0:%.*]] = arith.addi [[S]], [[K]] : index
// CHECK-NEXT:   [[K1:%.*]] = arith.addi [[K]], %c1 : index
// CHECK:        [[N1:%.*]] = pypto.tile.matmul_acc [[N0]],
// CHECK-NEXT:   [[S1:%.*]] = arith.addi [[S0]], [[K1]] : index
// CHECK-NEXT:   pypto.yield [[S1]], [[N1]] : index, !pypto.tile<16x64xf32, acc>
// CHECK-NEXT: }
// CHECK:      [[N2:%.*]] = pypto.tile.matmul_acc %acc_main,
// CHECK-NEXT: [[S2:%.*]] = arith.addi %sum_main, [[C4]] : index
// CHECK-NEXT: pypto.tile.store [[N2]], %c[%c0, %c0]
// CHECK-NEXT: func.return [[S2]] : index

// -----

// T = 2 < F = 3: no loop, the copies are seeded by the initial values.
func.func @tail_only(%init: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %sum = pypto.pipeline %i = %c0 to %c2 step %c1 stages 3 iter_args(%s = %init) -> (index) {
    %s2 = arith.addi %s, %i : index
    pypto.yield %s2 : index
  }
  func.return %sum : index
}

// CHECK-LABEL: func.func @tail_only
// CHECK:      [[S0:%.*]] = arith.addi %init, %c0 : index
// CHECK-NEXT: [[S1:%.*]] = arith.addi [[S0]], %c1 : index
// CHECK-NEXT: func.return [[S1]] : index

// -----

// A loop that yields an iter_arg unchanged and a value from outside the loop.
func.func @pass_through(%init: index, %other: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %same, %outer = pypto.pipeline %i = %c0 to %c3 step %c1 stages 2 iter_args(%a = %init, %b = %init) -> (index, index) {
    "test.op"(%a, %b) : (index, index) -> ()
    pypto.yield %a, %other : index, index
  }
  func.return %same, %outer : index, index
}

// CHECK-LABEL: func.func @pass_through
// CHECK:      %same_main, %outer_main = pypto.pipeline {{%.*}} = %c0 to [[C2:%.*]] step [[C2]] stages 1 iter_args([[A:%.*]] = %init, [[B:%.*]] = %init) -> (index, index) {
// CHECK-NEXT:   "test.op"([[A]], [[B]])
// CHECK-NEXT:   "test.op"([[A]], %other)
// CHECK-NEXT:   pypto.yield [[A]], %other : index, index
// CHECK-NEXT: }
// CHECK-NEXT: "test.op"(%same_main, %outer_main)
// CHECK-NEXT: func.return %same_main, %other : index, index

// -----

// Dynamic bounds: every branch of the cascade starts from the main loop's
// results and yields its last copy's values; the innermost else yields the
// main loop's results (rem == 0). The body does not use %i: no copy computes
// its index. The nested ifs' results are `_rem<k>`, the
// outermost if's replace the loop's results.
func.func @cascade(%n: index, %init: !pypto.tile<16x16xf32, vec>) -> !pypto.tile<16x16xf32, vec> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %acc = pypto.pipeline %i = %c0 to %n step %c1 stages 3 iter_args(%t = %init) -> (!pypto.tile<16x16xf32, vec>) {
    %u = pypto.tile.exp %t : !pypto.tile<16x16xf32, vec>
    pypto.yield %u : !pypto.tile<16x16xf32, vec>
  }
  func.return %acc : !pypto.tile<16x16xf32, vec>
}

// CHECK-LABEL: func.func @cascade
// CHECK:      %acc_main = pypto.pipeline [[I:%.*]] = %c0 to %unroll_main_end step {{%.*}} stages 1 iter_args([[T:%.*]] = %init) -> (!pypto.tile<16x16xf32, vec>) {
// CHECK-NEXT:   [[U0:%.*]] = pypto.tile.exp [[T]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   [[U1:%.*]] = pypto.tile.exp [[U0]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   [[U2:%.*]] = pypto.tile.exp [[U1]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:   pypto.yield [[U2]] : !pypto.tile<16x16xf32, vec>
// CHECK-NEXT: }
// CHECK:      %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, %c1 : index
// CHECK-NEXT: %acc = scf.if %unroll_rem_eq1 -> (!pypto.tile<16x16xf32, vec>) {
// CHECK-NEXT:   [[A0:%.*]] = pypto.tile.exp %acc_main {pypto.pipeline_membership = #pypto.membership<2:0>}
// CHECK-NEXT:   scf.yield [[A0]] : !pypto.tile<16x16xf32, vec>
// CHECK-NEXT: } else {
// CHECK-NEXT:   %unroll_rem_eq2 = arith.cmpi eq, %unroll_rem, {{%.*}} : index
// CHECK-NEXT:   %acc_rem2 = scf.if %unroll_rem_eq2 -> (!pypto.tile<16x16xf32, vec>) {
// CHECK-NEXT:     [[B0:%.*]] = pypto.tile.exp %acc_main {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:     [[B1:%.*]] = pypto.tile.exp [[B0]] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CHECK-NEXT:     scf.yield [[B1]] : !pypto.tile<16x16xf32, vec>
// CHECK-NEXT:   } else {
// CHECK-NEXT:     scf.yield %acc_main : !pypto.tile<16x16xf32, vec>
// CHECK-NEXT:   }
// CHECK-NEXT:   scf.yield %acc_rem2 : !pypto.tile<16x16xf32, vec>
// CHECK-NEXT: }
// CHECK-NEXT: func.return %acc : !pypto.tile<16x16xf32, vec>
