// Both passes, then upstream lowering to cf and cleanups, in one xdsl-opt
// process: a static pipeline becomes a cf loop (header block, body block with
// every copy's address math, then every load, then compute and store per
// stage, back edge) and a straight-line remainder with folded offsets. The
// membership tags survive. With licm while the loop is an scf.for, the
// address constants leave the loop. Both keep the results bit-identical.

// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s --check-prefix=LICM
// RUN: pypto-run %s --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %s --passes lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC

// 14 iterations, stages 4: three iterations of the main loop (to 12), two
// copies in the remainder.
func.func @static(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c14 = arith.constant 14 : index
  pypto.pipeline %i = %c0 to %c14 step %c1 stages 4 {
    %c64 = arith.constant 64 : index
    %off = arith.muli %i, %c64 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
    pypto.tile.store %y, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @static(
// CHECK:         %[[C0:.+]] = arith.constant 0 : index
// CHECK:         %[[C12:.+]] = arith.constant 12 : index
// CHECK:         %[[C4:.+]] = arith.constant 4 : index
// CHECK-NEXT:    cf.br ^[[HEAD:bb[0-9]+]](%[[C0]] : index)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.+]]: index):
// CHECK-NEXT:    %[[MORE:.+]] = arith.cmpi slt, %[[I]], %[[C12]] : index
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[REM:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK:         %[[OFF0:.+]] = arith.muli %[[I]], %{{.+}} : index
// CHECK:         %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK:         %[[OFF1:.+]] = arith.muli %[[I1]], %{{.+}} : index
// CHECK:         %[[I2:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK:         %[[OFF2:.+]] = arith.muli %[[I2]], %{{.+}} : index
// CHECK:         %[[I3:.+]] = arith.addi %[[I]], %{{.+}} : index
// CHECK:         %[[OFF3:.+]] = arith.muli %[[I3]], %{{.+}} : index
// CHECK-NEXT:    %[[T0:.+]] = pypto.tile.load %x[%[[OFF0]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:    %[[T1:.+]] = pypto.tile.load %x[%[[OFF1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:    %[[T2:.+]] = pypto.tile.load %x[%[[OFF2]]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:    %[[T3:.+]] = pypto.tile.load %x[%[[OFF3]]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// CHECK-NEXT:    %[[Y0:.+]] = pypto.tile.exp %[[T0]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:    pypto.tile.store %[[Y0]], %out[%[[OFF0]]]
// CHECK-NEXT:    %[[Y1:.+]] = pypto.tile.exp %[[T1]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:    pypto.tile.store %[[Y1]], %out[%[[OFF1]]]
// CHECK-NEXT:    %[[Y2:.+]] = pypto.tile.exp %[[T2]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:    pypto.tile.store %[[Y2]], %out[%[[OFF2]]]
// CHECK-NEXT:    %[[Y3:.+]] = pypto.tile.exp %[[T3]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// CHECK-NEXT:    pypto.tile.store %[[Y3]], %out[%[[OFF3]]]
// CHECK-NEXT:    %[[NEXT:.+]] = arith.addi %[[I]], %[[C4]] : index
// CHECK-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : index)
// CHECK-NEXT:  ^[[REM]]:
// CHECK-NEXT:    %[[R0:.+]] = arith.constant 768 : index
// CHECK-NEXT:    %[[U0:.+]] = pypto.tile.load %x[%[[R0]]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:    %[[V0:.+]] = pypto.tile.exp %[[U0]] {pypto.pipeline_membership = #pypto.membership<1:0>}
// CHECK-NEXT:    pypto.tile.store %[[V0]], %out[%[[R0]]]
// CHECK-NEXT:    %[[R1:.+]] = arith.constant 832 : index
// CHECK-NEXT:    %[[U1:.+]] = pypto.tile.load %x[%[[R1]]] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CHECK-NEXT:    %[[V1:.+]] = pypto.tile.exp %[[U1]] {pypto.pipeline_membership = #pypto.membership<1:1>}
// CHECK-NEXT:    pypto.tile.store %[[V1]], %out[%[[R1]]]
// CHECK-NEXT:    func.return
// CHECK-NOT:     pypto.pipeline
// CHECK-NOT:     scf.

// LICM-LABEL: func.func @static(
// LICM-COUNT-4:  arith.constant 64 : index
// LICM-NEXT:     cf.br ^[[HEAD:bb[0-9]+]](
// LICM-NEXT:   ^[[HEAD]](
// LICM-NEXT:     arith.cmpi
// LICM-NEXT:     cf.cond_br %{{.+}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// LICM-NEXT:   ^[[BODY]]:
// LICM-NOT:      arith.constant
// LICM:          cf.br ^[[HEAD]](

// EXEC:      @static: seed 0
// EXEC:      after --passes '{{.+}}': all 2 outputs bit-identical
