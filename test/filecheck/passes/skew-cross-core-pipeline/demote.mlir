// Every cross-core loop the pass does not skew becomes the scf.for it means,
// body unchanged; a pipeline without a push and a pop is left alone.
// explain=true says which, and why.

// RUN: xdsl-opt -p 'skew-cross-core-pipeline{explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: xdsl-opt -p 'skew-cross-core-pipeline' --split-input-file %s | filecheck %s

// The consumer role: the pop comes first and feeds the body.
func.func @consumer(%out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %s = pypto.tile.tpop_from_aic : !pypto.tile<16x64xf32, vec>
    %c = pypto.tile.add %s, %s : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aic %c : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %c, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @consumer: pypto.pipeline over %i, stages 2: demoted: the consumer half reads %s of the producer half (pypto.tile.tpop_from_aic is not a pure scalar op)
// CHECK-LABEL: func.func @consumer(
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c4 = arith.constant 4 : index
// CHECK-NEXT:    scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %s = pypto.tile.tpop_from_aic
// CHECK-NEXT:      %c = pypto.tile.add %s, %s : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:      pypto.tile.tpush_to_aic %c
// CHECK-NEXT:      pypto.tile.store %c, %out[%i, %c0]
// CHECK-NEXT:    }

// -----

// A pop first whose tile nothing reads (ours: PyPTO skews it, its pops run
// ahead of its pushes, and a peer that waits for each answer deadlocks).
func.func @idle_pop(%x: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %s = pypto.tile.tpop_from_aic : !pypto.tile<16x64xf32, vec>
    %w = pypto.tile.load %x[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aic %w : !pypto.tile<16x64xf32, vec>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @idle_pop: pypto.pipeline over %i, stages 2: demoted: the pop comes first: the peer produces, and this loop running ahead of it waits on tiles the peer sends after ours (a deadlock)
// CHECK-LABEL: func.func @idle_pop(
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %s = pypto.tile.tpop_from_aic
// CHECK-NEXT:      %w = pypto.tile.load %x[%i, %c0]
// CHECK-NEXT:      pypto.tile.tpush_to_aic %w
// CHECK-NEXT:    }

// -----

// Two round trips: skewing the first message only would reorder the FIFO.
func.func @multi_round_trip(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e0 = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %p1 = pypto.tile.add %e0, %e0 : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %p1 : !pypto.tile<16x64xf32, vec>
    %e1 = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e1, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @multi_round_trip: pypto.pipeline over %i, stages 2: demoted: 2 push(es) and 2 pop(s): skewing one message of several would reorder the in-order FIFO
// CHECK-LABEL: func.func @multi_round_trip(
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      pypto.tile.load
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.add
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.store
// CHECK-NEXT:    }

// -----

// Bounds not known at compile time.
func.func @dynamic(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @dynamic: pypto.pipeline over %i, stages 2: demoted: its bounds are not constants
// CHECK-LABEL: func.func @dynamic(
// CHECK:         scf.for %i = %c0 to %n step %c1 {

// -----

// One iteration: nothing to overlap.
func.func @one_iteration(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @one_iteration: pypto.pipeline over %i, stages 2: demoted: 1 iteration(s): nothing to overlap
// CHECK-LABEL: func.func @one_iteration(
// CHECK:         scf.for %i = %c0 to %c1 step %c1 {

// -----

// stages 1: a cross-core loop leaves the pass as an scf.for all the same.
func.func @stages_one(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @stages_one: pypto.pipeline over %i, stages 1: demoted: stages 1: nothing to skew
// CHECK-LABEL: func.func @stages_one(
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {

// -----

// The producer half reads a loop-carried value: it cannot run ahead.
func.func @producer_reads_iter_arg(%q: !pypto.tensor<64x64xf32>, %t0: !pypto.tile<16x64xf32, vec>) -> !pypto.tile<16x64xf32, vec> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 iter_args(%a = %t0) -> (!pypto.tile<16x64xf32, vec>) {
    %p = pypto.tile.add %a, %a : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %p : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.yield %e : !pypto.tile<16x64xf32, vec>
  }
  func.return %r : !pypto.tile<16x64xf32, vec>
}
// EXPLAIN: skew-cross-core-pipeline: @producer_reads_iter_arg: pypto.pipeline over %i, stages 2: demoted: the producer half reads the loop-carried %a
// CHECK-LABEL: func.func @producer_reads_iter_arg(
// CHECK:         %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%a = %t0) -> (!pypto.tile<16x64xf32, vec>) {

// -----

// The consumer stores where the producer loads: running the producer ahead
// would read before the write (PyPTO skews this; we do not).
func.func @memory_dependence(%x: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %qa = pypto.tile.load %x[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %x[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @memory_dependence: pypto.pipeline over %i, stages 2: demoted: pypto.tile.store (consumer) writes what pypto.tile.load (producer) touches (%x, or an alias)
// CHECK-LABEL: func.func @memory_dependence(
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {

// -----

// No pop (a one-way pipe), and no cross-core op at all: both left alone,
// for the later passes.
func.func @left_alone(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
  }
  pypto.pipeline %j = %c0 to %c4 step %c1 stages 2 {
    %qa = pypto.tile.load %q[%j, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.store %qa, %out[%j, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @left_alone: pypto.pipeline over %i, stages 2: left alone: no push and pop at the top level of its body
// EXPLAIN: skew-cross-core-pipeline: @left_alone: pypto.pipeline over %j, stages 2: left alone: no push and pop at the top level of its body
// CHECK-LABEL: func.func @left_alone(
// CHECK:         pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
// CHECK:         pypto.pipeline %j = %c0 to %c4 step %c1 stages 2 {

// -----

// An inner cross-core loop is skewed first; its prologue's pushes and its
// epilogue's pops then make the outer loop a cross-core loop of two round
// trips, demoted (as PyPTO does: it skews the inner loop first too).
func.func @nested(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %j = %c0 to %c2 step %c1 stages 2 {
    pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
      %qa = pypto.tile.load %q[%i, %j] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
      pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
      %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
      pypto.tile.store %e, %out[%i, %j] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
    }
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @nested: pypto.pipeline over %i, stages 2: skewed: depth 2 (asked 2, trip 4): 2 op(s) produce, 2 consume
// EXPLAIN-NEXT: skew-cross-core-pipeline: @nested: pypto.pipeline over %j, stages 2: demoted: 2 push(es) and 2 pop(s): skewing one message of several would reorder the in-order FIFO
// CHECK-LABEL: func.func @nested(
// CHECK:         scf.for %j = %c0 to %c2 step %c1 {
// CHECK-COUNT-2:   pypto.tile.tpush_to_aiv
// CHECK:           scf.for
