// dynamic=true (ours, not PyPTO's): a loop whose bounds are values is skewed
// under a runtime guard, trip >= 2*D and a multiple of D, computed without
// overflow (ub - lb read unsigned once ub > lb); else the loop as it was.
// Without the option it is demoted (demote.mlir).

// RUN: xdsl-opt -p 'skew-cross-core-pipeline{dynamic=true explain=true}' %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: xdsl-opt -p 'skew-cross-core-pipeline{dynamic=true}' %s | filecheck %s

func.func @dynamic(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>, %lb: index, %ub: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %lb to %ub step %c1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %e, %out[%i, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}
// EXPLAIN: skew-cross-core-pipeline: @dynamic: pypto.pipeline over %i, stages 2: skewed: depth 2 (asked 2, guarded: trip >= 2*depth and a multiple of depth, else sequential): 2 op(s) produce, 2 consume
// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[RUNS:\w+]] = arith.cmpi sgt, %ub, %lb : index
// CHECK-NEXT:    %[[SPAN:\w+]] = arith.subi %ub, %lb : index
// CHECK-NEXT:    %[[LEAST:\w+]] = arith.constant 3 : index
// CHECK-NEXT:    %[[LONG:\w+]] = arith.cmpi ugt, %[[SPAN]], %[[LEAST]] : index
// CHECK-NEXT:    %[[BOTH:\w+]] = arith.andi %[[RUNS]], %[[LONG]] : i1
// CHECK-NEXT:    %[[ONE:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[LAST:\w+]] = arith.subi %[[SPAN]], %[[ONE]] : index
// CHECK-NEXT:    %[[STEP:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[BEFORE:\w+]] = arith.divui %[[LAST]], %[[STEP]] : index
// CHECK-NEXT:    %[[D:\w+]] = arith.constant 2 : index
// CHECK-NEXT:    %[[PHASE:\w+]] = arith.remui %[[BEFORE]], %[[D]] : index
// CHECK-NEXT:    %[[DM1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[WHOLE:\w+]] = arith.cmpi eq, %[[PHASE]], %[[DM1]] : index
// CHECK-NEXT:    %[[OK:\w+]] = arith.andi %[[BOTH]], %[[WHOLE]] : i1
// CHECK-NEXT:    scf.if %[[OK]] {
// CHECK-NEXT:      pypto.tile.load %q[%lb, %c0]
// CHECK-NEXT:      pypto.tile.tpush_to_aiv
// CHECK:           %[[TWO:\w+]] = arith.constant 2 : index
// CHECK-NEXT:      %[[FIRST:\w+]] = arith.addi %lb, %[[TWO]] : index
// CHECK:           %[[NEXT:\w+]] = scf.for %[[K:\w+]] = %[[FIRST]] to %ub step %{{\w+}} iter_args(%{{\w+}} = %lb) -> (index) {
// CHECK-COUNT-2:     pypto.tile.tpush_to_aiv
// CHECK-COUNT-2:     pypto.tile.tpop_from_aiv
// CHECK:             scf.yield %[[K]] : index
// CHECK-NEXT:      }
// CHECK-NEXT:      pypto.tile.tpop_from_aiv
// CHECK-NEXT:      pypto.tile.store %{{\w+}}, %out[%[[NEXT]], %c0]
// CHECK:           pypto.tile.store
// CHECK-NEXT:    } else {
// CHECK-NEXT:      scf.for %[[I:\w+]] = %lb to %ub step %c1 {
// CHECK-NEXT:        pypto.tile.load %q[%[[I]], %c0]
// CHECK-NEXT:        pypto.tile.tpush_to_aiv
// CHECK-NEXT:        pypto.tile.tpop_from_aiv
// CHECK-NEXT:        pypto.tile.store
// CHECK-NEXT:      }
// CHECK-NEXT:    }
