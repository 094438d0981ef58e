// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | %roundtrip-generic --split-input-file | filecheck %s

// Every pypto.pipeline stages 1 becomes an scf.for with the same bounds,
// iter_args, results and discardable attributes; pypto.yield becomes
// scf.yield, the policy properties disappear.

// CHECK-LABEL: func.func @demote
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %c1 = arith.constant 1 : index
// CHECK-NEXT:    %c8 = arith.constant 8 : index
// CHECK-NEXT:    [[R0:%[^,]*]], [[R1:%.*]] = scf.for %i = %c0 to %c8 step %c1 iter_args(%a = %x, %t = %init) -> (index, !pypto.tile<64xf32, vec>) {
// CHECK-NEXT:      %a2 = arith.addi %a, %i : index
// CHECK-NEXT:      %t2 = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
// CHECK-NEXT:      scf.yield %a2, %t2 : index, !pypto.tile<64xf32, vec>
// CHECK-NEXT:    } {note = "kept"}
// CHECK-NEXT:    func.return [[R0]], [[R1]] : index, !pypto.tile<64xf32, vec>
func.func @demote(%x: index, %init: !pypto.tile<64xf32, vec>) -> (index, !pypto.tile<64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %r:2 = pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 overlap_stores = false double_buffer_acc = true iter_args(%a = %x, %t = %init) -> (index, !pypto.tile<64xf32, vec>) {
    %a2 = arith.addi %a, %i : index
    %t2 = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
    pypto.yield %a2, %t2 : index, !pypto.tile<64xf32, vec>
  } {note = "kept"}
  func.return %r#0, %r#1 : index, !pypto.tile<64xf32, vec>
}

// -----

// Nested pipelines are demoted too, without iter_args (implicit yield).

// CHECK-LABEL: func.func @demote_nested
// CHECK-NOT:     pypto.pipeline
// CHECK:         scf.for %i = %c0 to %c8 step %c1 {
// CHECK-NEXT:      scf.for %j = %c0 to %c8 step %c1 {
// CHECK-NEXT:        "test.op"(%i, %j) : (index, index) -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NOT:     pypto.pipeline
func.func @demote_nested() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    pypto.pipeline %j = %c0 to %c8 step %c1 stages 1 {
      "test.op"(%i, %j) : (index, index) -> ()
    }
  }
  func.return
}
