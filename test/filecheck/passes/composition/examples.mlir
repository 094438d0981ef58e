// Both passes, then upstream lowering to cf and cleanups, on every bundled
// example, in one process each: the loops become cf blocks, every load of a
// body comes before its compute, the tags survive, and pypto-run finds the
// results bit-identical.

// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %examples/add_one.mlir | filecheck %s --check-prefix=ADD
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %examples/row_softmax.mlir | filecheck %s --check-prefix=SOFTMAX
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %examples/matmul_k_loop.mlir | filecheck %s --check-prefix=MATMUL
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce %examples/matmul_k_loop.mlir | filecheck %s --check-prefix=MATMUL
// RUN: pypto-run %examples/add_one.mlir --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %examples/row_softmax.mlir --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %examples/matmul_k_loop.mlir --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %examples/matmul_k_loop.mlir --passes lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC

// add_one: 8 iterations, stages 4: two iterations of a loop of step 4, no
// remainder block.

// ADD-LABEL: func.func @add_one(
// ADD:         %[[C0:.+]] = arith.constant 0 : index
// ADD:         %[[C8:.+]] = arith.constant 8 : index
// ADD:         %[[C4:.+]] = arith.constant 4 : index
// ADD-NEXT:    cf.br ^[[HEAD:bb[0-9]+]](%[[C0]] : index)
// ADD-NEXT:  ^[[HEAD]](%[[I:.+]]: index):
// ADD-NEXT:    %[[MORE:.+]] = arith.cmpi slt, %[[I]], %[[C8]] : index
// ADD-NEXT:    cf.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// ADD-NEXT:  ^[[BODY]]:
// ADD-NOT:     pypto.tile.adds
// ADD:         pypto.tile.load %x[{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:0>}
// ADD-NEXT:    pypto.tile.load %x[{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:1>}
// ADD-NEXT:    pypto.tile.load %x[{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:2>}
// ADD-NEXT:    pypto.tile.load %x[{{.+}}] {pypto.pipeline_membership = #pypto.membership<0:3>}
// ADD-NEXT:    pypto.tile.adds {{.+}} {pypto.pipeline_membership = #pypto.membership<0:0>}
// ADD-NEXT:    pypto.tile.store
// ADD-NEXT:    pypto.tile.adds {{.+}} {pypto.pipeline_membership = #pypto.membership<0:1>}
// ADD-NEXT:    pypto.tile.store
// ADD-NEXT:    pypto.tile.adds {{.+}} {pypto.pipeline_membership = #pypto.membership<0:2>}
// ADD-NEXT:    pypto.tile.store
// ADD-NEXT:    pypto.tile.adds {{.+}} {pypto.pipeline_membership = #pypto.membership<0:3>}
// ADD-NEXT:    pypto.tile.store
// ADD-NEXT:    %[[NEXT:.+]] = arith.addi %[[I]], %[[C4]] : index
// ADD-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : index)
// ADD-NEXT:  ^[[EXIT]]:
// ADD-NEXT:    func.return

// row_softmax: 8 row blocks, stages 2: both loads, then each stage's row ops
// and store.

// SOFTMAX-LABEL: func.func @row_softmax(
// SOFTMAX:         cf.br ^[[HEAD:bb[0-9]+]](%{{.+}} : index)
// SOFTMAX-NEXT:  ^[[HEAD]](%[[ROW:.+]]: index):
// SOFTMAX-NEXT:    arith.cmpi slt, %[[ROW]]
// SOFTMAX-NEXT:    cf.cond_br %{{.+}}, ^[[BODY:bb[0-9]+]], ^{{bb[0-9]+}}
// SOFTMAX-NEXT:  ^[[BODY]]:
// SOFTMAX-NEXT:    %[[ROW1:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// SOFTMAX-NEXT:    %[[T0:.+]] = pypto.tile.load %x[%[[ROW]], %{{.+}}] {{.*}}<0:0>}
// SOFTMAX-NEXT:    %[[T1:.+]] = pypto.tile.load %x[%[[ROW1]], %{{.+}}] {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.row_max %[[T0]] {{.*}}<0:0>}
// SOFTMAX-NEXT:    pypto.tile.row_expand_sub {{.*}}<0:0>}
// SOFTMAX-NEXT:    pypto.tile.exp {{.*}}<0:0>}
// SOFTMAX-NEXT:    pypto.tile.row_sum {{.*}}<0:0>}
// SOFTMAX-NEXT:    pypto.tile.row_expand_div {{.*}}<0:0>}
// SOFTMAX-NEXT:    pypto.tile.store %{{.+}}, %out[%[[ROW]], %{{.+}}]
// SOFTMAX-NEXT:    pypto.tile.row_max %[[T1]] {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.row_expand_sub {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.exp {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.row_sum {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.row_expand_div {{.*}}<0:1>}
// SOFTMAX-NEXT:    pypto.tile.store %{{.+}}, %out[%[[ROW1]], %{{.+}}]
// SOFTMAX-NEXT:    %[[NEXT:.+]] = arith.addi %[[ROW]], %{{.+}} : index
// SOFTMAX-NEXT:    cf.br ^[[HEAD]](%[[NEXT]] : index)

// matmul_k_loop: the accumulator is a block argument of the loop header, the
// back edge passes the last matmul_acc, and the exit block stores the
// header's argument.

// MATMUL-LABEL: func.func @matmul_k_loop(
// MATMUL:         %[[INIT:.+]] = pypto.tile.full
// MATMUL:         cf.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[INIT]] : index, !pypto.tile<16x256xf32, acc>)
// MATMUL-NEXT:  ^[[HEAD]](%[[K:.+]]: index, %[[PARTIAL:.+]]: !pypto.tile<16x256xf32, acc>):
// MATMUL-NEXT:    arith.cmpi slt, %[[K]]
// MATMUL-NEXT:    cf.cond_br %{{.+}}, ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// MATMUL-NEXT:  ^[[BODY]]:
// MATMUL-NEXT:    arith.addi %[[K]]
// MATMUL-NEXT:    pypto.tile.load %a{{.*}}<0:0>}
// MATMUL-NEXT:    pypto.tile.load %b{{.*}}<0:0>}
// MATMUL-NEXT:    %[[AL0:.+]] = pypto.tile.extract {{.*}}<0:0>}{{.*}}left>
// MATMUL-NEXT:    %[[BR0:.+]] = pypto.tile.extract {{.*}}<0:0>}{{.*}}right>
// MATMUL-NEXT:    pypto.tile.load %a{{.*}}<0:1>}
// MATMUL-NEXT:    pypto.tile.load %b{{.*}}<0:1>}
// MATMUL-NEXT:    %[[AL1:.+]] = pypto.tile.extract {{.*}}<0:1>}{{.*}}left>
// MATMUL-NEXT:    %[[BR1:.+]] = pypto.tile.extract {{.*}}<0:1>}{{.*}}right>
// MATMUL-NEXT:    %[[N0:.+]] = pypto.tile.matmul_acc %[[PARTIAL]], %[[AL0]], %[[BR0]] :
// MATMUL-NEXT:    %[[N1:.+]] = pypto.tile.matmul_acc %[[N0]], %[[AL1]], %[[BR1]] :
// MATMUL-NEXT:    %[[NEXT:.+]] = arith.addi %[[K]], %{{.+}} : index
// MATMUL-NEXT:    cf.br ^[[HEAD]](%[[NEXT]], %[[N1]] : index, !pypto.tile<16x256xf32, acc>)
// MATMUL-NEXT:  ^[[EXIT]]:
// MATMUL-NEXT:    pypto.tile.store %[[PARTIAL]], %c[
// MATMUL-NEXT:    func.return

// EXEC:      after --passes '{{.+}}': all {{[23]}} outputs bit-identical
