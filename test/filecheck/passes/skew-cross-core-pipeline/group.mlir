// group=true: a loop of two messages per direction runs all its pushes
// ahead together (ours, not PyPTO's); without it, it is demoted. A push
// that needs a pop of its own iteration, a pop nested in a branch, or a
// FIFO too small for one iteration's messages keep the loop sequential.

// RUN: xdsl-opt -p 'skew-cross-core-pipeline{group=true explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: xdsl-opt -p 'skew-cross-core-pipeline{explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s --check-prefix=PYPTO
// RUN: xdsl-opt -p 'skew-cross-core-pipeline{group=true}' --split-input-file %s | filecheck %s

// Two independent messages, stages 3 (depth 2), trip 4: the prologue
// pushes both messages of iterations 0 and 1; the steady loop pushes those
// of k and k+1, then pops the four answers of k-2 and k-1, in order.
func.func @two_messages(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 {
    %row = arith.muli %i, %c16 : index
    %a = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    %b = pypto.tile.add %a, %a : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %b : !pypto.tile<16x64xf32, vec>
    %x = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %y = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %s = pypto.tile.add %x, %y : !pypto.tile<16x64xf32, vec>
    %row2 = arith.muli %i, %c16 : index
    pypto.tile.store %s, %out[%row2, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: @two_messages: pypto.pipeline over %i, stages 3: skewed: depth 2 (asked 2, trip 4, 2 pushes and 2 pops together): 5 op(s) produce, 5 consume
// PYPTO: @two_messages: pypto.pipeline over %i, stages 3: demoted: the consumer half reads %a of the producer half (pypto.tile.load is not a pure scalar op)
// CHECK-LABEL: func.func @two_messages(
// CHECK-NOT:     pypto.pipeline %
// CHECK-COUNT-4: pypto.tile.tpush_to_aiv
// CHECK-NOT:     pypto.tile.tpop_from_aiv
// CHECK:         scf.for
// CHECK-COUNT-4: pypto.tile.tpush_to_aiv
// CHECK-COUNT-4: pypto.tile.tpop_from_aiv
// CHECK:         {{^    [}]$}}
// CHECK-NOT:     pypto.tile.tpush_to_aiv
// CHECK-COUNT-4: pypto.tile.tpop_from_aiv
// CHECK:         func.return

// -----

// The second message answers the first: it cannot run ahead.
func.func @answering(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 {
    %row = arith.muli %i, %c16 : index
    %a = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    %x = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %b = pypto.tile.add %x, %x : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %b : !pypto.tile<16x64xf32, vec>
    %y = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %y, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: @answering: pypto.pipeline over %i, stages 3: demoted: a push needs %x, popped in the same iteration: the FIFO group cannot run ahead
// CHECK-LABEL: func.func @answering(
// CHECK:         scf.for

// -----

// A FIFO of 1 cannot hold one iteration's two messages.
func.func @small_fifo(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 {
    %row = arith.muli %i, %c16 : index
    %a = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    %x = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %x, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
func.func @vec() {
  func.return
}
// EXPLAIN: @small_fifo: pypto.pipeline over %i, stages 3: demoted: FIFO depth 1 holds fewer than one iteration's 2 messages
// CHECK-LABEL: func.func @small_fifo(
// CHECK:         scf.for

// -----

// A pop nested in a branch: the group's order is not at the top level.
func.func @nested(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 {
    %row = arith.muli %i, %c16 : index
    %a = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %a : !pypto.tile<16x64xf32, vec>
    %x = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    scf.if %c {
      %y = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
      pypto.tile.store %y, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
    }
    pypto.tile.store %x, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: @nested: pypto.pipeline over %i, stages 3: demoted: a push or pop nested in scf.if: the FIFO group is not at the top level
// CHECK-LABEL: func.func @nested(
// CHECK:         scf.for
