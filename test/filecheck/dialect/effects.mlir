// The memory effects make upstream passes safe on our IR: canonicalize, cse
// and dce keep stores and cross-core ops, do not merge reads across writes,
// and still clean up pure tile math.

// RUN: xdsl-opt %s --split-input-file -p canonicalize,cse,dce | filecheck %s

// A store and a push are kept although nothing uses them.
func.func @keeps_stores_and_pushes(%x: !pypto.tensor<128xf32>, %t: !pypto.tile<64xf32, vec>) {
  %c0 = arith.constant 0 : index
  pypto.tile.store %t, %x[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  pypto.tile.tpush_to_aiv %t : !pypto.tile<64xf32, vec>
  pypto.tile.tpush_to_aic %t : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK-LABEL: func.func @keeps_stores_and_pushes(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<128xf32>, %[[T:\w+]]: !pypto.tile<64xf32, vec>) {
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    pypto.tile.store %[[T]], %[[X]][%[[C0]]] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
// CHECK-NEXT:    pypto.tile.tpush_to_aiv %[[T]] : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    pypto.tile.tpush_to_aic %[[T]] : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    func.return

// -----

// Two pops receive two different tiles: neither merged nor, when unused, deleted.
func.func @keeps_pops() {
  %a = pypto.tile.tpop_from_aic : !pypto.tile<64xf32, vec>
  %b = pypto.tile.tpop_from_aic : !pypto.tile<64xf32, vec>
  %unused = pypto.tile.tpop_from_aiv : !pypto.tile<64xf32, vec>
  "test.op"(%a, %b) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  func.return
}
// CHECK-LABEL: func.func @keeps_pops() {
// CHECK-NEXT:    %[[A:\w+]] = pypto.tile.tpop_from_aic : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    %[[B:\w+]] = pypto.tile.tpop_from_aic : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    %{{\w+}} = pypto.tile.tpop_from_aiv : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    "test.op"(%[[A]], %[[B]]) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()

// -----

// A load of a window that a store has written in between is a new read.
func.func @no_load_merge_across_store(%x: !pypto.tensor<128xf32>, %t: !pypto.tile<64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  pypto.tile.store %t, %x[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  %b = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  "test.op"(%a, %b) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  func.return
}
// CHECK-LABEL: func.func @no_load_merge_across_store(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<128xf32>, %[[T:\w+]]: !pypto.tile<64xf32, vec>) {
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:\w+]] = pypto.tile.load %[[X]][%[[C0]]] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
// CHECK-NEXT:    pypto.tile.store %[[T]], %[[X]][%[[C0]]] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
// CHECK-NEXT:    %[[B:\w+]] = pypto.tile.load %[[X]][%[[C0]]] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
// CHECK-NEXT:    "test.op"(%[[A]], %[[B]]) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()

// -----

// Loads are reads, not unknown effects: two loads of the same window with no
// write in between are merged, an unused load is deleted.
func.func @merges_and_deletes_loads(%x: !pypto.tensor<128xf32>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  %b = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  %unused = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<32xf32, vec>
  "test.op"(%a, %b) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  func.return
}
// CHECK-LABEL: func.func @merges_and_deletes_loads(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<128xf32>) {
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[A:\w+]] = pypto.tile.load %[[X]][%[[C0]]] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
// CHECK-NEXT:    "test.op"(%[[A]], %[[A]]) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()

// -----

// Loads of the same window into tiles of different types are different values.
func.func @no_merge_of_different_tiles(%x: !pypto.tensor<128xf32>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
  %b = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<32xf32, vec>
  %c = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, mat>
  "test.op"(%a, %b, %c) : (!pypto.tile<64xf32, vec>, !pypto.tile<32xf32, vec>, !pypto.tile<64xf32, mat>) -> ()
  func.return
}
// CHECK-LABEL: func.func @no_merge_of_different_tiles(
// CHECK-NEXT:    arith.constant
// CHECK-NEXT:    %[[A:\w+]] = pypto.tile.load {{.*}} -> !pypto.tile<64xf32, vec>
// CHECK-NEXT:    %[[B:\w+]] = pypto.tile.load {{.*}} -> !pypto.tile<32xf32, vec>
// CHECK-NEXT:    %[[C:\w+]] = pypto.tile.load {{.*}} -> !pypto.tile<64xf32, mat>
// CHECK-NEXT:    "test.op"(%[[A]], %[[B]], %[[C]])

// -----

// Pure tile math: identical ops are merged, unused ones deleted.
func.func @cleans_pure_math(%x: !pypto.tile<64x64xf32, vec>, %y: !pypto.tile<64x64xf32, vec>, %s: f32) {
  %a = pypto.tile.add %x, %y : !pypto.tile<64x64xf32, vec>
  %b = pypto.tile.add %x, %y : !pypto.tile<64x64xf32, vec>
  %e = pypto.tile.exp %a : !pypto.tile<64x64xf32, vec>
  %m = pypto.tile.muls %x, %s : !pypto.tile<64x64xf32, vec>, f32
  %r = pypto.tile.row_sum %m : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  %f = pypto.tile.full %s : f32 -> !pypto.tile<64x64xf32, vec>
  "test.op"(%a, %b) : (!pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec>) -> ()
  func.return
}
// CHECK-LABEL: func.func @cleans_pure_math(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tile<64x64xf32, vec>, %[[Y:\w+]]: !pypto.tile<64x64xf32, vec>, %{{\w+}}: f32) {
// CHECK-NEXT:    %[[A:\w+]] = pypto.tile.add %[[X]], %[[Y]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:    "test.op"(%[[A]], %[[A]]) : (!pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec>) -> ()
// CHECK-NEXT:    func.return

// -----

// A pipeline loop carries the effects of its body: kept when it stores,
// deleted when its body is pure and its results unused.
func.func @pipeline_effects(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<128xf32, vec>
    pypto.tile.store %e, %x[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %e = pypto.tile.exp %t : !pypto.tile<128xf32, vec>
  }
  func.return
}
// CHECK-LABEL: func.func @pipeline_effects(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<1024xf32>, %[[N:\w+]]: index) {
// CHECK:         pypto.pipeline %[[I:\w+]] = %{{\w+}} to %[[N]] step %{{\w+}} stages 2 {
// CHECK-NEXT:      %[[T:\w+]] = pypto.tile.load %[[X]][%[[I]]] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
// CHECK-NEXT:      %[[E:\w+]] = pypto.tile.exp %[[T]] : !pypto.tile<128xf32, vec>
// CHECK-NEXT:      pypto.tile.store %[[E]], %[[X]][%[[I]]] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return
