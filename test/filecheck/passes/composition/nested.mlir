// Nested pipelines: a static outer pipeline (stages 2) around a dynamic inner
// one (stages 2). After both passes and the cf lowering, the outer loop's
// body block holds two inner loops, one per outer copy, each with its own
// header, body and remainder blocks; the tags record both levels
// (`<inner group:copy, outer group:copy>`).

// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s
// RUN: pypto-run %s --index n=7 --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %s --index n=7 --passes lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC

func.func @nested(%x: !pypto.tensor<64x8xf32>, %out: !pypto.tensor<64x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    pypto.pipeline %j = %c0 to %n step %c1 stages 2 {
      %ij = arith.addi %i, %j : index
      %row = arith.muli %ij, %c4 : index
      %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
      %e = pypto.tile.add %t, %t : !pypto.tile<4x8xf32, vec>
      pypto.tile.store %e, %out[%row, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<64x8xf32>
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nested(
// CHECK:         cf.br ^[[OUTER:bb[0-9]+]](%{{.+}} : index)
// CHECK-NEXT:  ^[[OUTER]](%[[I:.+]]: index):
// CHECK-NEXT:    %[[MORE:.+]] = arith.cmpi slt, %[[I]], %{{.+}} : index
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^[[OUTER_BODY:bb[0-9]+]], ^[[DONE:bb[0-9]+]]
// CHECK-NEXT:  ^[[OUTER_BODY]]:
// CHECK:         %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK:         cf.br ^[[INNER0:bb[0-9]+]](%{{.+}} : index)

// The inner loop of outer copy 0: two copies per iteration, then one.
// CHECK-NEXT:  ^[[INNER0]](%[[J:.+]]: index):
// CHECK-NEXT:    arith.cmpi slt, %[[J]]
// CHECK-NEXT:    cf.cond_br %{{.+}}, ^[[INNER0_BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[INNER0_BODY]]:
// CHECK-NEXT:    arith.addi %[[I]], %[[J]] : index
// CHECK:         pypto.tile.load {{.*}}<0:0, 2:0>}
// CHECK-NEXT:    pypto.tile.load {{.*}}<0:1, 2:0>}
// CHECK-NEXT:    pypto.tile.add {{.*}}<0:0, 2:0>}
// CHECK-NEXT:    pypto.tile.store
// CHECK-NEXT:    pypto.tile.add {{.*}}<0:1, 2:0>}
// CHECK-NEXT:    pypto.tile.store
// CHECK-NEXT:    %[[J_NEXT:.+]] = arith.addi %[[J]], %{{.+}} : index
// CHECK-NEXT:    cf.br ^[[INNER0]](%[[J_NEXT]] : index)
// CHECK:         pypto.tile.load {{.*}}<1:0, 2:0>}

// The inner loop of outer copy 1, at index %i + 1.
// CHECK:       ^[[INNER1:bb[0-9]+]](%[[J1:.+]]: index):
// CHECK-NEXT:    arith.cmpi slt, %[[J1]]
// CHECK-NEXT:    cf.cond_br %{{.+}}, ^[[INNER1_BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// CHECK-NEXT:  ^[[INNER1_BODY]]:
// CHECK-NEXT:    arith.addi %[[I1]], %[[J1]] : index
// CHECK:         pypto.tile.load {{.*}}<0:0, 2:1>}
// CHECK-NEXT:    pypto.tile.load {{.*}}<0:1, 2:1>}
// CHECK:         cf.br ^[[INNER1]](
// CHECK:         pypto.tile.load {{.*}}<1:0, 2:1>}

// The outer back edge, step 2.
// CHECK:         %[[I_NEXT:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK-NEXT:    cf.br ^[[OUTER]](%[[I_NEXT]] : index)
// CHECK-NEXT:  ^[[DONE]]:
// CHECK-NEXT:    func.return
// CHECK-NOT:     pypto.pipeline

// EXEC:      @nested: seed 0
// EXEC:      after --passes '{{.+}}': all 2 outputs bit-identical
