// Both passes chained on every bundled example: the final op order of each
// lowered body (scalars, loads of every copy, then compute and store per
// stage), the demoted loop, and what stays outside it.

// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order %examples/add_one.mlir | filecheck %s --check-prefix=ADD
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order %examples/row_softmax.mlir | filecheck %s --check-prefix=SOFTMAX
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order %examples/matmul_k_loop.mlir | filecheck %s --check-prefix=MATMUL

// add_one: 8 iterations, stages 4: two iterations of the main loop, no remainder.

// ADD-LABEL: func.func @add_one(
// ADD:         %[[C0:.+]] = arith.constant 0 : index
// ADD:         %[[C8:.+]] = arith.constant 8 : index
// ADD:         %[[C4:.+]] = arith.constant 4 : index
// ADD-NEXT:    scf.for %[[I:.+]] = %[[C0]] to %[[C8]] step %[[C4]] {
// ADD-NEXT:      %[[K128_0:.+]] = arith.constant 128 : index
// ADD-NEXT:      %[[OFF0:.+]] = arith.muli %[[I]], %[[K128_0]] : index
// ADD-NEXT:      %[[ONE0:.+]] = arith.constant 1.000000e+00 : f32
// ADD-NEXT:      %[[I1:.+]] = arith.addi %[[I]], %{{.+}} : index
// ADD-NEXT:      %[[K128_1:.+]] = arith.constant 128 : index
// ADD-NEXT:      %[[OFF1:.+]] = arith.muli %[[I1]], %[[K128_1]] : index
// ADD-NEXT:      %[[ONE1:.+]] = arith.constant 1.000000e+00 : f32
// ADD-NEXT:      %[[I2:.+]] = arith.addi %[[I]], %{{.+}} : index
// ADD-NEXT:      %{{.+}} = arith.constant 128 : index
// ADD-NEXT:      %[[OFF2:.+]] = arith.muli %[[I2]], %{{.+}} : index
// ADD-NEXT:      %[[ONE2:.+]] = arith.constant 1.000000e+00 : f32
// ADD-NEXT:      %[[I3:.+]] = arith.addi %[[I]], %{{.+}} : index
// ADD-NEXT:      %{{.+}} = arith.constant 128 : index
// ADD-NEXT:      %[[OFF3:.+]] = arith.muli %[[I3]], %{{.+}} : index
// ADD-NEXT:      %[[ONE3:.+]] = arith.constant 1.000000e+00 : f32
// ADD-NEXT:      %[[T0:.+]] = pypto.tile.load %x[%[[OFF0]]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// ADD-NEXT:      %[[T1:.+]] = pypto.tile.load %x[%[[OFF1]]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// ADD-NEXT:      %[[T2:.+]] = pypto.tile.load %x[%[[OFF2]]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// ADD-NEXT:      %[[T3:.+]] = pypto.tile.load %x[%[[OFF3]]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// ADD-NEXT:      %[[Y0:.+]] = pypto.tile.adds %[[T0]], %[[ONE0]] {pypto.pipeline_membership = #pypto.membership<0:0>}
// ADD-NEXT:      pypto.tile.store %[[Y0]], %out[%[[OFF0]]]
// ADD-NEXT:      %[[Y1:.+]] = pypto.tile.adds %[[T1]], %[[ONE1]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// ADD-NEXT:      pypto.tile.store %[[Y1]], %out[%[[OFF1]]]
// ADD-NEXT:      %[[Y2:.+]] = pypto.tile.adds %[[T2]], %[[ONE2]] {pypto.pipeline_membership = #pypto.membership<0:2>}
// ADD-NEXT:      pypto.tile.store %[[Y2]], %out[%[[OFF2]]]
// ADD-NEXT:      %[[Y3:.+]] = pypto.tile.adds %[[T3]], %[[ONE3]] {pypto.pipeline_membership = #pypto.membership<0:3>}
// ADD-NEXT:      pypto.tile.store %[[Y3]], %out[%[[OFF3]]]
// ADD-NEXT:    }
// ADD-NEXT:    func.return
// ADD-NOT:     pypto.pipeline

// row_softmax: 8 row blocks, stages 2: both loads first, then each stage's
// five row ops and its store.

// SOFTMAX-LABEL: func.func @row_softmax(
// SOFTMAX:         %[[C32:.+]] = arith.constant 32 : index
// SOFTMAX-NEXT:    scf.for %[[ROW:.+]] = %{{.+}} to %{{.+}} step %[[C32]] {
// SOFTMAX-NEXT:      %[[ROW1:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// SOFTMAX-NEXT:      %[[T0:.+]] = pypto.tile.load %x[%[[ROW]], %{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:0>}
// SOFTMAX-NEXT:      %[[T1:.+]] = pypto.tile.load %x[%[[ROW1]], %{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:1>}
// SOFTMAX-NEXT:      %[[MAX0:.+]] = pypto.tile.row_max %[[T0]] {{.*}}<0:0>
// SOFTMAX-NEXT:      %[[SH0:.+]] = pypto.tile.row_expand_sub %[[T0]], %[[MAX0]] {{.*}}<0:0>
// SOFTMAX-NEXT:      %[[E0:.+]] = pypto.tile.exp %[[SH0]] {{.*}}<0:0>
// SOFTMAX-NEXT:      %[[SUM0:.+]] = pypto.tile.row_sum %[[E0]] {{.*}}<0:0>
// SOFTMAX-NEXT:      %[[Y0:.+]] = pypto.tile.row_expand_div %[[E0]], %[[SUM0]] {{.*}}<0:0>
// SOFTMAX-NEXT:      pypto.tile.store %[[Y0]], %out[%[[ROW]], %{{.+}}]
// SOFTMAX-NEXT:      %[[MAX1:.+]] = pypto.tile.row_max %[[T1]] {{.*}}<0:1>
// SOFTMAX-NEXT:      %[[SH1:.+]] = pypto.tile.row_expand_sub %[[T1]], %[[MAX1]] {{.*}}<0:1>
// SOFTMAX-NEXT:      %[[E1:.+]] = pypto.tile.exp %[[SH1]] {{.*}}<0:1>
// SOFTMAX-NEXT:      %[[SUM1:.+]] = pypto.tile.row_sum %[[E1]] {{.*}}<0:1>
// SOFTMAX-NEXT:      %[[Y1:.+]] = pypto.tile.row_expand_div %[[E1]], %[[SUM1]] {{.*}}<0:1>
// SOFTMAX-NEXT:      pypto.tile.store %[[Y1]], %out[%[[ROW1]], %{{.+}}]
// SOFTMAX-NEXT:    }
// SOFTMAX-NEXT:    func.return

// matmul_k_loop: 8 K chunks, stages 2, an acc iter_arg: the loads and the
// mat -> left/right extracts (loads too) of stage 0, then of stage 1, then the
// matmul_acc chain (untagged: acc without double_buffer_acc); the store of the
// result stays after the loop.

// MATMUL-LABEL: func.func @matmul_k_loop(
// MATMUL:         %[[INIT:.+]] = pypto.tile.full
// MATMUL-NEXT:    %[[C128:.+]] = arith.constant 128 : index
// MATMUL-NEXT:    %[[ACC:.+]] = scf.for %[[K:.+]] = %{{.+}} to %{{.+}} step %[[C128]] iter_args(%[[PARTIAL:.+]] = %[[INIT]]) -> (!pypto.tile<16x256xf32, acc>) {
// MATMUL-NEXT:      %[[K1:.+]] = arith.addi %[[K]], %{{.+}} : index
// MATMUL-NEXT:      %[[A0:.+]] = pypto.tile.load %a[%{{.+}}, %[[K]]] {{.*}}<0:0>
// MATMUL-NEXT:      %[[B0:.+]] = pypto.tile.load %b[%[[K]], %{{.+}}] {{.*}}<0:0>
// MATMUL-NEXT:      %[[AL0:.+]] = pypto.tile.extract %[[A0]]{{.*}}<0:0>{{.*}}left>
// MATMUL-NEXT:      %[[BR0:.+]] = pypto.tile.extract %[[B0]]{{.*}}<0:0>{{.*}}right>
// MATMUL-NEXT:      %[[A1:.+]] = pypto.tile.load %a[%{{.+}}, %[[K1]]] {{.*}}<0:1>
// MATMUL-NEXT:      %[[B1:.+]] = pypto.tile.load %b[%[[K1]], %{{.+}}] {{.*}}<0:1>
// MATMUL-NEXT:      %[[AL1:.+]] = pypto.tile.extract %[[A1]]{{.*}}<0:1>{{.*}}left>
// MATMUL-NEXT:      %[[BR1:.+]] = pypto.tile.extract %[[B1]]{{.*}}<0:1>{{.*}}right>
// MATMUL-NEXT:      %[[N0:.+]] = pypto.tile.matmul_acc %[[PARTIAL]], %[[AL0]], %[[BR0]] :
// MATMUL-NEXT:      %[[N1:.+]] = pypto.tile.matmul_acc %[[N0]], %[[AL1]], %[[BR1]] :
// MATMUL-NEXT:      scf.yield %[[N1]] : !pypto.tile<16x256xf32, acc>
// MATMUL-NEXT:    }
// MATMUL-NEXT:    pypto.tile.store %[[ACC]], %c[
// MATMUL-NEXT:    func.return
