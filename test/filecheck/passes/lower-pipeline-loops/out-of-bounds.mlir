// A static iteration outside a tensor: the input verifies (its verifier
// cannot see %i's value), but the lowering flattens the remainder with %i a
// constant. The pass diagnoses it at the loop, naming the iteration and what
// it accesses, before anything is rewritten: the output is never made.
// remainder=loop flattens a remainder of one iteration, the same failure;
// a remainder loop of two or more keeps %i a value (no constant, no error).
// lower-pipeline-to-slots keeps one body over a loop (an scf.for): no
// iteration becomes a constant, so it cannot fail so (the SLOTS run; the
// loops it declines are left to lower-pipeline-loops, which diagnoses them).

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file --verify-diagnostics %s | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop}' --split-input-file --verify-diagnostics %s | filecheck %s --check-prefix=LOOP
// RUN: xdsl-opt -p lower-pipeline-to-slots --split-input-file %s | filecheck %s --check-prefix=SLOTS

// The whole loop is one iteration, below the tensor.
func.func @before_the_tensor(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>) {
  %cm1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %cm1 to %c0 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<64xf32> -> !pypto.tile<1xf32, vec>
    pypto.tile.store %t, %out[%c0] : !pypto.tile<1xf32, vec>, !pypto.tensor<64xf32>
    pypto.yield
  }
  func.return
}

// CHECK:      "pypto.pipeline"(%cm1, %c0, %c1) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | the iteration %i = -1, which the lowering flattens, puts pypto.tile.load of %x out of bounds: window [-1, 0) is out of bounds of dimension 0 of size 64

// LOOP: the iteration %i = -1, which the lowering flattens, puts pypto.tile.load of %x out of bounds: window [-1, 0) is out of bounds of dimension 0 of size 64

// -----

// The remainder after the main loop: 0, 2, 4, 6 in the main loop, 8 flattened,
// a store whose window [8, 10) leaves the 8 elements of %out.
func.func @past_the_end(%x: !pypto.tensor<8xf32>, %out: !pypto.tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c9 = arith.constant 9 : index
  pypto.pipeline %i = %c0 to %c9 step %c2 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<8xf32> -> !pypto.tile<2xf32, vec>
    pypto.tile.store %t, %out[%i] : !pypto.tile<2xf32, vec>, !pypto.tensor<8xf32>
    pypto.yield
  }
  func.return
}

// CHECK:      "pypto.pipeline"(%c0, %c9, %c2) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | the iteration %i = 8, which the lowering flattens, puts pypto.tile.store of %out out of bounds: window [8, 10) is out of bounds of dimension 0 of size 8

// LOOP: the iteration %i = 8, which the lowering flattens, puts pypto.tile.store of %out out of bounds: window [8, 10) is out of bounds of dimension 0 of size 8

// -----

// An element of a tile, in a branch of the body: iterations 4 and 5 are
// flattened (stages 4, trip 6), 4 is the first outside the tile. With
// remainder=loop they run in a loop: %i stays a value, the lowering succeeds.
func.func @element_in_a_branch(%x: !pypto.tensor<4xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  pypto.pipeline %i = %c0 to %c6 step %c1 stages 4 {
    scf.if %c {
      %t = pypto.tile.load %x[%c0] : !pypto.tensor<4xf32> -> !pypto.tile<4xf32, vec>
      %e = pypto.tile.read %t[%i] : !pypto.tile<4xf32, vec>
      "test.op"(%e) : (f32) -> ()
    }
    pypto.yield
  }
  func.return
}

// CHECK:      "pypto.pipeline"(%c0, %c6, %c1) <{stages = 4 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | the iteration %i = 4, which the lowering flattens, puts pypto.tile.read of %t out of bounds: index 4 is out of bounds of dimension 0 of size 4

// LOOP-LABEL: func.func @element_in_a_branch
// LOOP:         scf.for %[[I:i[_0-9]*]] = %c4 to %c6 step %c1 {
// LOOP:           pypto.tile.read %t{{[_0-9]*}}[%[[I]]]

// -----

// A loop lower-pipeline-to-slots rotates: iteration 8 loads past the end of
// %x; replicated, it is flattened (diagnosed); rotated, %i stays a value.
func.func @rotated(%x: !pypto.tensor<8xf32>, %out: !pypto.tensor<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c9 = arith.constant 9 : index
  pypto.pipeline %i = %c0 to %c9 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<8xf32> -> !pypto.tile<1xf32, vec>
    pypto.tile.store %t, %out[%c0] : !pypto.tile<1xf32, vec>, !pypto.tensor<8xf32>
    pypto.yield
  }
  func.return
}

// CHECK:      "pypto.pipeline"(%c0, %c9, %c1) <{stages = 2 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | the iteration %i = 8, which the lowering flattens, puts pypto.tile.load of %x out of bounds: window [8, 9) is out of bounds of dimension 0 of size 8

// LOOP: the iteration %i = 8, which the lowering flattens, puts pypto.tile.load of %x out of bounds: window [8, 9) is out of bounds of dimension 0 of size 8

// SLOTS-LABEL: func.func @rotated
// SLOTS:         scf.for %i = %c0 to %c9 step %c1 {
// SLOTS:           pypto.tile.load %x[%i]
// SLOTS-NEXT:      pypto.bind

// -----

// Three flattened iterations (stages 4, trip 7: 4, 5 and 6), only the last
// out of bounds: the first and the last are checked (a window's bounds are
// an interval of offsets), so the middle ones need no check.
func.func @last_of_three(%x: !pypto.tensor<7xf32>, %out: !pypto.tensor<7xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c7 = arith.constant 7 : index
  pypto.pipeline %i = %c0 to %c7 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<7xf32> -> !pypto.tile<2xf32, vec>
    pypto.tile.store %t, %out[%c0] : !pypto.tile<2xf32, vec>, !pypto.tensor<7xf32>
    pypto.yield
  }
  func.return
}

// CHECK:      "pypto.pipeline"(%c0, %c7, %c1) <{stages = 4 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | the iteration %i = 6, which the lowering flattens, puts pypto.tile.load of %x out of bounds: window [6, 8) is out of bounds of dimension 0 of size 7

// LOOP-LABEL: func.func @last_of_three
// LOOP:         scf.for %[[I:i[_0-9]*]] = %c4 to %c7 step %c1 {
// LOOP:           pypto.tile.load %x[%[[I]]]
