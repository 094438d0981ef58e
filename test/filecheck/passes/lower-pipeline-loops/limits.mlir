// The replication limit and index overflow: diagnostics on the pipeline,
// raised before any op is created (the annotated IR is the input IR), and
// quickly (a mistyped `stages` must not hang the tool).

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file --verify-diagnostics %s | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops{max-copies=6000}' %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=RAISED
// RUN: xdsl-opt -p 'lower-pipeline-loops{max-copies=0}' %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=ZERO

// A dynamic trip count: F copies in the main loop, F(F-1)/2 in the cascade.
func.func @dynamic(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 100 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      lowering would create 5050 copies of the loop body (stages 100 with a dynamic trip count: 100 in the main loop and 4950 in the remainder cascade), more than max-copies=1024; lower `stages`, or raise the limit with lower-pipeline-loops{max-copies=N}
// CHECK:      "pypto.pipeline"(%c0, %n, %c1) <{stages = 100 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// CHECK-NEXT: | lowering would create 5050 copies

// The limit is an option: under it, the cascade is built.
// RAISED:     %unroll_rem_eq99 = arith.cmpi eq, %unroll_rem, %c99 : index
// ZERO:       max-copies must be at least 1, got 0

// -----

// A static trip count of 10^12: one main-loop body of F = 10^6 copies.
func.func @static(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 1000000000000 : index
  pypto.pipeline %i = %c0 to %big step %c1 stages 1000000 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      lowering would create 1000000 copies of the loop body (stages 1000000, trip count 1000000000000), more than max-copies=1024
// RAISED:     lowering would create 1000000 copies of the loop body (stages 1000000, trip count 1000000000000), more than max-copies=6000

// -----

// Nested pipelines: each copy of the outer body holds the inner copies.
func.func @nested(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  pypto.pipeline %i = %c0 to %c100 step %c1 stages 64 {
    pypto.pipeline %j = %c0 to %c100 step %c1 stages 64 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}

// CHECK:      lowering would create 10000 copies of the loop body (stages 64, trip count 100; each copy holds 100 copies of the pipelines nested in it), more than max-copies=1024
// CHECK:      "pypto.pipeline"(%c0, %c100, %c1) <{stages = 64 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// RAISED:     lowering would create 10000 copies of the loop body (stages 64, trip count 100; each copy holds 100 copies of the pipelines nested in it), more than max-copies=6000

// -----

// F * step, the step of the lowered loop, does not fit the 64-bit index.
func.func @overflow(%x: !pypto.tensor<1024xf32>) {
  %lb = arith.constant -9223372036854775808 : index
  %ub = arith.constant 9223372036854775807 : index
  %step = arith.constant 4611686018427387904 : index
  pypto.pipeline %i = %lb to %ub step %step stages 4 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      the lowered loop's step, stages * step = 4 * 4611686018427387904 = 18446744073709551616, overflows the 64-bit index type
// CHECK:      "pypto.pipeline"(%lb, %ub, %step) <{stages = 4 : i64}> ({
// CHECK-NEXT: ^^^^^^^^^^^^^^^^---
// RAISED:     overflows the 64-bit index type
