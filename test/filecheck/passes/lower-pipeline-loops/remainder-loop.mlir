// remainder=loop: the iterations after the main loop run in one scf.for of
// the original body (seeded with the main loop's results, its copy tagged
// with a group of its own), static or dynamic; a static remainder of one
// iteration is that copy, flattened. remainder=cascade is the default.

// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop}' %s | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=cascade}' %s | filecheck %s --check-prefix=CASCADE
// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop}' %s | xdsl-opt -p 'lower-pipeline-loops{remainder=loop}' | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop},canonicalize-io-order{explain=true}' %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN

// Static, T = 10, F = 4: a main loop of 8, a remainder loop of 2.
func.func @static_rest(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  pypto.pipeline %i = %c0 to %c10 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @static_rest
// CHECK:         %[[END:.*]] = arith.constant 8 : index
// CHECK:         pypto.pipeline %[[I:.*]] = %c0 to %[[END]] step %c4 stages 1 {
// CHECK:           pypto.tile.load %x[%[[I]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-COUNT-3:   {pypto.pipeline_membership = #pypto.membership<0:{{[123]}}>}
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %[[J:.*]] = %[[END]] to %c10 step %c1 {
// CHECK-NEXT:      %[[T:.*]] = pypto.tile.load %x[%[[J]]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:      "test.op"(%[[T]])
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// CASCADE-LABEL: func.func @static_rest
// CASCADE-NOT:     scf.for
// CASCADE:         pypto.tile.load %x[%c8] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CASCADE:         pypto.tile.load %x[%c9] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CASCADE-NEXT:    "test.op"
// CASCADE-NEXT:    func.return

// Static without a remainder (T = 8): the same as the cascade, no loop after.
func.func @static_whole(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @static_whole
// CHECK:         pypto.pipeline %{{.*}} = %c0 to %c8 step %c4 stages 1 {
// CHECK-COUNT-4:   pypto.tile.load
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// Static, T = 5, F = 4: one iteration left, flattened (a loop of one would
// be the same copy inside an scf.for).
func.func @static_one(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  pypto.pipeline %i = %c0 to %c5 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @static_one
// CHECK:         pypto.pipeline
// CHECK-COUNT-4:   pypto.tile.load
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{.*}} = pypto.tile.load %x[%c4] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:    "test.op"
// CHECK-NEXT:    func.return

// Static, T = 3 < F = 4: no main loop, the remainder loop runs them all.
func.func @static_short(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %c0 to %c3 step %c1 stages 4 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @static_short
// CHECK-NOT:     pypto.pipeline
// CHECK:         scf.for %[[J:.*]] = %c0 to %c3 step %c1 {
// CHECK-NEXT:      pypto.tile.load %x[%[[J]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// Dynamic bounds with iter_args: the remainder loop runs from the main
// loop's end to %n with the original step, seeded with its results.
func.func @dynamic(%n: index, %init: !pypto.tile<16x16xf32, vec>) -> !pypto.tile<16x16xf32, vec> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %acc = pypto.pipeline %i = %c0 to %n step %c2 stages 3 iter_args(%t = %init) -> (!pypto.tile<16x16xf32, vec>) {
    %u = pypto.tile.exp %t : !pypto.tile<16x16xf32, vec>
    pypto.yield %u : !pypto.tile<16x16xf32, vec>
  }
  func.return %acc : !pypto.tile<16x16xf32, vec>
}

// CHECK-LABEL: func.func @dynamic
// CHECK:         %[[END:.*]] = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK:         %[[MAIN:.*]] = pypto.pipeline %{{.*}} = %c0 to %[[END]] step %c6 stages 1 iter_args(%t = %init)
// CHECK-COUNT-3:   pypto.tile.exp
// CHECK-NEXT:      pypto.yield
// CHECK-NEXT:    }
// CHECK-NOT:     scf.if
// CHECK-NEXT:    %acc = scf.for %[[J:.*]] = %[[END]] to %n step %c2 iter_args(%[[T:.*]] = %[[MAIN]]) -> (!pypto.tile<16x16xf32, vec>) {
// CHECK-NEXT:      %[[U:.*]] = pypto.tile.exp %[[T]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:      scf.yield %[[U]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %acc

// CASCADE-LABEL: func.func @dynamic
// CASCADE:         %unroll_rem = arith.floordivsi
// CASCADE:         scf.if %unroll_rem_eq1

// Nested: the inner remainder loop is copied into every copy of the outer
// body; each copy's tiles carry the inner pair, then the outer.
func.func @nested(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    pypto.pipeline %j = %c0 to %c5 step %c1 stages 2 {
      %t = pypto.tile.load %x[%j] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
      "test.op"(%t, %i) : (!pypto.tile<128xf32, vec>, index) -> ()
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nested
// CHECK:         pypto.pipeline %[[I:.*]] = %c0 to %{{.*}} step %c2 stages 1 {
// CHECK:           pypto.pipeline %{{.*}} = %c0 to %c4 step %{{.*}} stages 1 {
// CHECK:             pypto.tile.load {{.*}}#pypto.membership<0:0, 2:0>
// CHECK:             pypto.tile.load {{.*}}#pypto.membership<0:1, 2:0>
// CHECK-NEXT:        "test.op"
// CHECK-NEXT:      }
// CHECK-NEXT:      pypto.tile.load %x[%c4] {pypto.pipeline_membership = #pypto.membership<1:0, 2:0>}
// CHECK:           pypto.pipeline %{{.*}} = %c0 to %{{.*}} step %{{.*}} stages 1 {
// CHECK:             pypto.tile.load {{.*}}#pypto.membership<0:0, 2:1>
// CHECK:           pypto.tile.load {{.*}}#pypto.membership<1:0, 2:1>
// CHECK-NEXT:      "test.op"
// CHECK-NEXT:    }
// CHECK-NEXT:    scf.for %{{.*}} = %{{.*}} to %n step %c1 {
// CHECK:           pypto.pipeline %{{.*}} = %c0 to %[[C4:.*]] step %{{.*}} stages 1 {
// CHECK:             pypto.tile.load {{.*}}#pypto.membership<0:0, 3:0>
// CHECK:           pypto.tile.load %x[%[[C4]]] {pypto.pipeline_membership = #pypto.membership<1:0, 3:0>}

// canonicalize-io-order explains the main loop's block; the remainder
// loop holds one copy of the body, which it leaves as it is.
func.func @explain(%x: !pypto.tensor<1024xf32>, %n: index, %init: !pypto.tile<128xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %u = pypto.tile.exp %init : !pypto.tile<128xf32, vec>
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %s = pypto.tile.add %u, %t : !pypto.tile<128xf32, vec>
    pypto.tile.store %s, %x[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// EXPLAIN:      canonicalize-io-order: a block of pypto.pipeline in @explain:
// EXPLAIN-NEXT:   #4 -> #0 arith.addi (%i_1): moved
// EXPLAIN-NEXT:   #1 -> #1 pypto.tile.load (%t): moved
// EXPLAIN-NEXT:   #6 -> #5 pypto.tile.load (%t_1): moved, held by #3 pypto.tile.store: read after write of %x
// EXPLAIN-NOT:  scf.for
