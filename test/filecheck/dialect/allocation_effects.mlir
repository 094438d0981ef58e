// The effects of declarations and bindings keep upstream passes safe: a
// binding writes its allocation, so canonicalize, cse and dce never merge
// or delete one (two bindings of one tile to different slots stay two),
// and licm never hoists one out of a loop; a declaration nothing binds to
// is deleted, one in use is kept.

// RUN: xdsl-opt %s --split-input-file -p canonicalize,cse,dce | filecheck %s
// RUN: xdsl-opt %s --split-input-file -p licm | filecheck %s --check-prefix=LICM

func.func @bindings_kept(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>) {
  %pipe = pypto.alloc "pipe" slots 2 : !pypto.alloc<vec>
  %unused = pypto.alloc "unused" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %l = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  %t0 = pypto.bind %l to %pipe[%c0] : !pypto.tile<64xf32, vec>
  %t1 = pypto.bind %l to %pipe[%c1] : !pypto.tile<64xf32, vec>
  %t2 = pypto.bind %l to %pipe[%c1] : !pypto.tile<64xf32, vec>
  %s = pypto.tile.add %t0, %t1 : !pypto.tile<64xf32, vec>
  pypto.tile.store %s, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
  func.return
}
// CHECK-LABEL: func.func @bindings_kept(
// CHECK-NEXT:    %[[PIPE:\w+]] = pypto.alloc "pipe" slots 2 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %[[L:\w+]] = pypto.tile.load
// CHECK-NEXT:    %[[T0:\w+]] = pypto.bind %[[L]] to %[[PIPE]][%[[C0]]]
// CHECK-NEXT:    %[[T1:\w+]] = pypto.bind %[[L]] to %[[PIPE]][%[[C1]]]
// CHECK-NEXT:    %{{\w+}} = pypto.bind %[[L]] to %[[PIPE]][%[[C1]]]
// CHECK-NEXT:    pypto.tile.add %[[T0]], %[[T1]]

// -----

// A read of a tensor is not merged across a binding (which writes).
func.func @loads_not_merged_across_a_binding(%x: !pypto.tensor<64xf32>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %l0 = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  %t = pypto.bind %l0 to %a : !pypto.tile<64xf32, vec>
  %l1 = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  "test.op"(%t, %l1) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  func.return
}
// CHECK-LABEL: func.func @loads_not_merged_across_a_binding(
// CHECK:         %[[L0:\w+]] = pypto.tile.load
// CHECK-NEXT:    %[[T:\w+]] = pypto.bind %[[L0]]
// CHECK-NEXT:    %[[L1:\w+]] = pypto.tile.load
// CHECK-NEXT:    "test.op"(%[[T]], %[[L1]])

// -----

func.func @not_hoisted(%t: !pypto.tile<64xf32, vec>, %n: index) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %b = pypto.bind %t to %a : !pypto.tile<64xf32, vec>
    "test.op"(%b) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// LICM-LABEL: func.func @not_hoisted(
// LICM:         scf.for
// LICM-NEXT:      %[[B:\w+]] = pypto.bind
// LICM-NEXT:      "test.op"(%[[B]])
