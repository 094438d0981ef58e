// lower-pipeline-to-slots in front of both passes: the loop it rotates is an
// scf.for that the other two leave alone, the loop it declines (step 2) is
// replicated and ordered as before; then upstream passes. Results are
// bit-identical whatever runs.

// RUN: xdsl-opt -p lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s --check-prefix=CF
// RUN: pypto-run %s --passes lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %s --passes lower-pipeline-to-slots,lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC

func.func @both(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %off = arith.muli %i, %c64 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
    pypto.tile.store %e, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
  }
  pypto.pipeline %j = %c8 to %c64 step %c2 stages 2 {
    %off = arith.muli %j, %c2 : index
    %u = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %n = pypto.tile.neg %u : !pypto.tile<64xf32, vec>
    pypto.tile.store %n, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @both(
// CHECK-NEXT:    %[[PT:\w+]] = pypto.alloc "pipe_t" slots 2 : !pypto.alloc<vec>
// CHECK:         scf.for
// CHECK:           pypto.bind %{{\w+}} to %[[PT]][%{{\w+}}]
// CHECK:           pypto.tile.exp
// CHECK-NOT:       pypto.pipeline_membership
// CHECK:         }
// CHECK:         scf.for
// CHECK-COUNT-2:   pypto.tile.load {{.*}}pypto.pipeline_membership
// CHECK-NOT:     pypto.bind

// CF-LABEL: func.func @both(
// CF:         pypto.alloc "pipe_t" slots 2
// CF:         pypto.bind
// CF:         cf.br

// EXEC: all 2 outputs bit-identical
