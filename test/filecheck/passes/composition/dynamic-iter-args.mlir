// A dynamic upper bound and a loop-carried value (the shape whose last
// `scf.yield` was once built, recorded as a use and never inserted, which
// crashed `convert-scf-to-cf` in the same process): the main loop carries the
// sum in a block argument of its header, the remainder cascade becomes
// `cf.cond_br` blocks, and every path (no, one or two remaining iterations)
// passes its sum to one join block.

// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce %s | filecheck %s
// RUN: pypto-run %s --index n=7 --passes lower-pipeline-loops,canonicalize-io-order,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC
// RUN: pypto-run %s --index n=8 --passes lower-pipeline-loops,canonicalize-io-order,licm,convert-scf-to-cf,canonicalize,cse,dce | filecheck %s --check-prefix=EXEC

func.func @dynamic(%x: !pypto.tensor<64x8xf32>, %out: !pypto.tensor<64x8xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %sum = pypto.pipeline %i = %c0 to %n step %c1 stages 3 iter_args(%acc = %zero) -> (f32) {
    %row = arith.muli %i, %c4 : index
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<4x8xf32, vec>
    pypto.tile.store %e, %out[%row, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<64x8xf32>
    %v = pypto.tile.read %e[%c0, %c0] : !pypto.tile<4x8xf32, vec>
    %next = arith.addf %acc, %v : f32
    pypto.yield %next : f32
  }
  func.return %sum : f32
}

// CHECK-LABEL: func.func @dynamic(
// CHECK:         %[[ZERO:.+]] = arith.constant 0.000000e+00 : f32
// CHECK:         %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index
// CHECK:         cf.br ^[[HEAD:bb[0-9]+]](%{{.+}}, %[[ZERO]] : index, f32)
// CHECK-NEXT:  ^[[HEAD]](%[[I:.+]]: index, %[[ACC:.+]]: f32):
// CHECK-NEXT:    %[[MORE:.+]] = arith.cmpi slt, %[[I]], %unroll_main_end : index
// CHECK-NEXT:    cf.cond_br %[[MORE]], ^[[BODY:bb[0-9]+]], ^[[REM:bb[0-9]+]]
// CHECK-NEXT:  ^[[BODY]]:
// CHECK-NOT:     ^bb
// CHECK:         pypto.tile.load {{.*}}<0:0>}
// CHECK-NEXT:    pypto.tile.load {{.*}}<0:1>}
// CHECK-NEXT:    pypto.tile.load {{.*}}<0:2>}
// CHECK-NEXT:    pypto.tile.exp {{.*}}<0:0>}
// CHECK:         %[[S0:.+]] = arith.addf %[[ACC]], %{{.+}} : f32
// CHECK:         pypto.tile.exp {{.*}}<0:1>}
// CHECK:         %[[S1:.+]] = arith.addf %[[S0]], %{{.+}} : f32
// CHECK:         pypto.tile.exp {{.*}}<0:2>}
// CHECK:         %[[S2:.+]] = arith.addf %[[S1]], %{{.+}} : f32
// CHECK:         cf.br ^[[HEAD]](%{{.+}}, %[[S2]] : index, f32)
// CHECK-NEXT:  ^[[REM]]:
// CHECK:         %[[EQ1:.+]] = arith.cmpi eq, %unroll_rem, %{{.+}} : index
// CHECK-NEXT:    cf.cond_br %[[EQ1]], ^[[ONE:bb[0-9]+]], ^[[NOT_ONE:bb[0-9]+]]
// CHECK-NEXT:  ^[[ONE]]:
// CHECK:         pypto.tile.load {{.*}}<2:0>}
// CHECK:         %[[R1:.+]] = arith.addf %[[ACC]], %{{.+}} : f32
// CHECK-NEXT:    cf.br ^[[JOIN:bb[0-9]+]](%[[R1]] : f32)
// CHECK-NEXT:  ^[[NOT_ONE]]:
// CHECK-NEXT:    %[[EQ2:.+]] = arith.cmpi eq, %unroll_rem, %{{.+}} : index
// CHECK-NEXT:    cf.cond_br %[[EQ2]], ^[[TWO:bb[0-9]+]], ^[[JOIN]](%[[ACC]] : f32)
// CHECK-NEXT:  ^[[TWO]]:
// CHECK:         pypto.tile.load {{.*}}<1:0>}
// CHECK:         %[[R2A:.+]] = arith.addf %[[ACC]], %{{.+}} : f32
// CHECK:         pypto.tile.load {{.*}}<1:1>}
// CHECK:         %[[R2B:.+]] = arith.addf %[[R2A]], %{{.+}} : f32
// CHECK-NEXT:    cf.br ^[[JOIN]](%[[R2B]] : f32)
// CHECK-NEXT:  ^[[JOIN]](%[[SUM:.+]]: f32):
// CHECK-NEXT:    func.return %[[SUM]] : f32
// CHECK-NOT:     scf.

// EXEC:      @dynamic: seed 0
// EXEC:      after --passes '{{.+}}': all 3 outputs bit-identical
