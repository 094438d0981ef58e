// The skews: a producer half run D iterations ahead, D = max(2, stages - 1)
// cut to the largest D' that divides the trip count and leaves a steady loop.
// Running the pass twice changes nothing more: its output has no pipeline.

// RUN: xdsl-opt -p 'skew-cross-core-pipeline{explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: xdsl-opt -p 'skew-cross-core-pipeline' --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p 'skew-cross-core-pipeline,skew-cross-core-pipeline' --split-input-file %s | filecheck %s

// Depth 2 (stages 2, trip 4): two produces, a steady loop from 2 by 2 of two
// produces then the two trailing consumes, two consumes.
func.func @depth_two(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %row = arith.muli %i, %c16 : index
    %qa = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    %rs = pypto.tile.add %qa, %qa : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %rs : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %oi = pypto.tile.add %e, %e : !pypto.tile<16x64xf32, vec>
    %row2 = arith.muli %i, %c16 : index
    pypto.tile.store %oi, %out[%row2, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @depth_two: pypto.pipeline over %i, stages 2: skewed: depth 2 (asked 2, trip 4): 4 op(s) produce, 4 consume
// CHECK-LABEL: func.func @depth_two(
// CHECK-NOT:     pypto.pipeline
// CHECK:         %c16 = arith.constant 16 : index
// CHECK-NEXT:    %[[P0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    arith.muli %[[P0]], %c16
// CHECK-NEXT:    pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<1048576:0>}
// CHECK-NEXT:    pypto.tile.add {{.*}} {pypto.pipeline_membership = #pypto.membership<1048576:0>}
// CHECK-NEXT:    pypto.tile.tpush_to_aiv
// CHECK-NEXT:    %[[P1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    arith.muli %[[P1]], %c16
// CHECK-NEXT:    pypto.tile.load {{.*}}<1048576:1>}
// CHECK-NEXT:    pypto.tile.add {{.*}}<1048576:1>}
// CHECK-NEXT:    pypto.tile.tpush_to_aiv
// CHECK-NEXT:    %[[LB:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[STEP:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    scf.for %[[K:\w+]] = %[[LB]] to %c4 step %[[STEP]] {
// CHECK-NEXT:      arith.muli %[[K]], %c16
// CHECK-NEXT:      pypto.tile.load {{.*}}<1048576:0>}
// CHECK-NEXT:      pypto.tile.add {{.*}}<1048576:0>}
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[K1:\w+]] = arith.addi %[[K]], %[[ONE]] : index
// CHECK-NEXT:      arith.muli %[[K1]], %c16
// CHECK-NEXT:      pypto.tile.load {{.*}}<1048576:1>}
// CHECK-NEXT:      pypto.tile.add {{.*}}<1048576:1>}
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK-NEXT:      %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[KM2:\w+]] = arith.subi %[[K]], %[[TWO]] : index
// CHECK-NEXT:      %[[E0:\w+]] = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
// CHECK-NEXT:      pypto.tile.add %[[E0]], %[[E0]] {{.*}}<1048576:0>}
// CHECK-NEXT:      arith.muli %[[KM2]], %c16
// CHECK-NEXT:      pypto.tile.store
// CHECK-NEXT:      %[[ONE2:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[KM1:\w+]] = arith.subi %[[K]], %[[ONE2]] : index
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.add {{.*}}<1048576:1>}
// CHECK-NEXT:      arith.muli %[[KM1]], %c16
// CHECK-NEXT:      pypto.tile.store
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[E2:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    pypto.tile.tpop_from_aiv
// CHECK-NEXT:    pypto.tile.add {{.*}}<1048576:0>}
// CHECK-NEXT:    arith.muli %[[E2]], %c16
// CHECK-NEXT:    pypto.tile.store
// CHECK-NEXT:    %[[E3:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    pypto.tile.tpop_from_aiv
// CHECK-NEXT:    pypto.tile.add {{.*}}<1048576:1>}
// CHECK-NEXT:    arith.muli %[[E3]], %c16
// CHECK-NEXT:    pypto.tile.store
// CHECK-NEXT:    func.return

// -----

// Depth 3 (stages 4, trip 6, the vector side pushing first): three produces,
// a steady loop from 3 by 3, three consumes.
func.func @depth_three(%q: !pypto.tensor<128x64xf32>, %out: !pypto.tensor<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c6 = arith.constant 6 : index
  pypto.pipeline %i = %c0 to %c6 step %c1 stages 4 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<128x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aic %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aic : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<128x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @depth_three: pypto.pipeline over %i, stages 4: skewed: depth 3 (asked 3, trip 6): 2 op(s) produce, 2 consume
// CHECK-LABEL: func.func @depth_three(
// CHECK-COUNT-3: pypto.tile.tpush_to_aic
// CHECK-NOT:     pypto.tile.tpop_from_aic
// CHECK:         %[[LB:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[STEP:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    scf.for %{{\w+}} = %[[LB]] to %c6 step %[[STEP]] {
// CHECK-COUNT-3: pypto.tile.tpush_to_aic
// CHECK-NOT:     pypto.tile.tpush_to_aic
// CHECK-COUNT-3: pypto.tile.tpop_from_aic
// CHECK:         }
// CHECK-NOT:     pypto.tile.tpush_to_aic
// CHECK-COUNT-3: pypto.tile.tpop_from_aic
// CHECK-NOT:     pypto.tile.tpop_from_aic
// CHECK:         func.return

// -----

// An odd trip (3) divides by no depth above 1: the classic one-ahead skew.
func.func @odd_trip(%q: !pypto.tensor<128x64xf32>, %out: !pypto.tensor<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %c0 to %c3 step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<128x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<128x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @odd_trip: pypto.pipeline over %i, stages 2: skewed: depth 1 (asked 2, trip 3): 2 op(s) produce, 2 consume
// CHECK-LABEL: func.func @odd_trip(
// CHECK:         %c3 = arith.constant 3 : index
// CHECK-NEXT:    arith.constant 0 : index
// CHECK-NEXT:    pypto.tile.load
// CHECK-NEXT:    pypto.tile.tpush_to_aiv
// CHECK-NEXT:    %[[LB:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[STEP:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    scf.for %[[K:\w+]] = %[[LB]] to %c3 step %[[STEP]] {
// CHECK-NEXT:      pypto.tile.load %{{\w+}}[%[[K]], %c0]
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK-NEXT:      %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:      %[[KM1:\w+]] = arith.subi %[[K]], %[[ONE]] : index
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.store %{{\w+}}, %{{\w+}}[%[[KM1]], %c0]
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[LAST:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    pypto.tile.tpop_from_aiv
// CHECK-NEXT:    pypto.tile.store %{{\w+}}, %{{\w+}}[%[[LAST]], %c0]
// CHECK-NEXT:    func.return

// -----

// Loop-carried values thread through the consumes in order: the steady
// loop's, then the epilogue's, whose last values replace the loop's results.
func.func @iter_args(%q: !pypto.tensor<64x64xf32>, %acc0: !pypto.tile<16x64xf32, vec>, %n0: index) -> (!pypto.tile<16x64xf32, vec>, index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r:2 = pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 iter_args(%a = %acc0, %m = %n0) -> (!pypto.tile<16x64xf32, vec>, index) {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %a2 = pypto.tile.add %a, %e : !pypto.tile<16x64xf32, vec>
    %m2 = arith.addi %m, %i : index
    pypto.yield %a2, %m2 : !pypto.tile<16x64xf32, vec>, index
  }
  func.return %r#0, %r#1 : !pypto.tile<16x64xf32, vec>, index
}
// EXPLAIN: skew-cross-core-pipeline: @iter_args: pypto.pipeline over %i, stages 3: skewed: depth 2 (asked 2, trip 4): 2 op(s) produce, 3 consume
// CHECK-LABEL: func.func @iter_args(
// CHECK-SAME:      %{{\w+}}: !pypto.tensor<64x64xf32>, %[[ACC0:\w+]]: !pypto.tile<16x64xf32, vec>, %[[N0:\w+]]: index)
// CHECK:         %[[R:\w+]], %[[RN:\w+]] = scf.for %[[K:\w+]] = %{{\w+}} to %c4 step %{{\w+}} iter_args(%[[A:\w+]] = %[[ACC0]], %[[M:\w+]] = %[[N0]])
// CHECK:           %[[A1:\w+]] = pypto.tile.add %[[A]], %{{\w+}}
// CHECK-NEXT:      %[[M1:\w+]] = arith.addi %[[M]], %{{\w+}} : index
// CHECK:           %[[A2:\w+]] = pypto.tile.add %[[A1]], %{{\w+}}
// CHECK-NEXT:      %[[M2:\w+]] = arith.addi %[[M1]], %{{\w+}} : index
// CHECK-NEXT:      scf.yield %[[A2]], %[[M2]]
// CHECK:         %[[A3:\w+]] = pypto.tile.add %[[R]], %{{\w+}}
// CHECK-NEXT:    %[[M3:\w+]] = arith.addi %[[RN]], %{{\w+}} : index
// CHECK:         %[[A4:\w+]] = pypto.tile.add %[[A3]], %{{\w+}}
// CHECK-NEXT:    %[[M4:\w+]] = arith.addi %[[M3]], %{{\w+}} : index
// CHECK-NEXT:    func.return %[[A4]], %[[M4]]

// -----

// An address the consumer shares with the producer is a pure scalar: each
// consume recomputes it at its own iteration.
func.func @recomputed_address(%kv: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %off = arith.muli %i, %c16 : index
    %ka = pypto.tile.load %kv[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %ka : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    %va = pypto.tile.load %kv[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    %oi = pypto.tile.add %e, %va : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %oi, %out[%off, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @recomputed_address: pypto.pipeline over %i, stages 2: skewed: depth 2 (asked 2, trip 4): 3 op(s) produce, 5 consume
// CHECK-LABEL: func.func @recomputed_address(
// CHECK:         scf.for %[[K:\w+]] =
// CHECK:           %[[KM2:\w+]] = arith.subi %[[K]], %{{\w+}} : index
// CHECK-NEXT:      %[[OFF:\w+]] = arith.muli %[[KM2]], %c16 : index
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.load %{{\w+}}[%[[OFF]], %c0]
// CHECK-NEXT:      pypto.tile.add
// CHECK-NEXT:      pypto.tile.store %{{\w+}}, %{{\w+}}[%[[OFF]], %c0]
