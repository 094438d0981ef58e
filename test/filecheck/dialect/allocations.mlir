// Declared allocations and bindings print in their custom syntax and
// round-trip through the custom and the generic form; `slots 1` (the
// default) is not printed, and a binding to one slot has no index.

// RUN: xdsl-opt %s | %roundtrip | filecheck %s
// RUN: xdsl-opt %s | %roundtrip-generic | filecheck %s
// RUN: xdsl-opt %s > %t && xdsl-opt %s | %roundtrip-generic | diff %t -
// RUN: xdsl-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

func.func @rotation(%x: !pypto.tensor<256x64xf32>, %out: !pypto.tensor<256x64xf32>) {
  %pipe = pypto.alloc "pipe_t" slots 2 : !pypto.alloc<vec>
  %mine = pypto.alloc "mine" slots 1 : !pypto.alloc<mat>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %slot = arith.remsi %i, %c2 : index
    %l = pypto.tile.load %x[%i, %c0] : !pypto.tensor<256x64xf32> -> !pypto.tile<64x64xf32, vec>
    %t = pypto.bind %l to %pipe[%slot] : !pypto.tile<64x64xf32, vec>
    %m = pypto.tile.load %x[%i, %c0] : !pypto.tensor<256x64xf32> -> !pypto.tile<64x64xf32, mat>
    %b = pypto.bind %m to %mine {tag} : !pypto.tile<64x64xf32, mat>
    %e = pypto.tile.exp %t : !pypto.tile<64x64xf32, vec>
    %e1 = pypto.bind %e to %pipe[%c1] : !pypto.tile<64x64xf32, vec>
    pypto.tile.store %e1, %out[%i, %c0] : !pypto.tile<64x64xf32, vec>, !pypto.tensor<256x64xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @rotation(
// CHECK-NEXT:    %[[PIPE:\w+]] = pypto.alloc "pipe_t" slots 2 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[MINE:\w+]] = pypto.alloc "mine" : !pypto.alloc<mat>
// CHECK:         %[[C1:\w+]] = arith.constant 1 : index
// CHECK:         scf.for
// CHECK-NEXT:      %[[SLOT:\w+]] = arith.remsi
// CHECK-NEXT:      %[[L:\w+]] = pypto.tile.load
// CHECK-NEXT:      %[[T:\w+]] = pypto.bind %[[L]] to %[[PIPE]][%[[SLOT]]] : !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:      %[[M:\w+]] = pypto.tile.load
// CHECK-NEXT:      %{{\w+}} = pypto.bind %[[M]] to %[[MINE]] {tag} : !pypto.tile<64x64xf32, mat>
// CHECK-NEXT:      %[[E:\w+]] = pypto.tile.exp %[[T]]
// CHECK-NEXT:      %{{\w+}} = pypto.bind %[[E]] to %[[PIPE]][%[[C1]]] : !pypto.tile<64x64xf32, vec>

// GENERIC:      "pypto.alloc"() <{alloc_name = "pipe_t", slots = 2 : i64}> : () -> !pypto.alloc<vec>
// GENERIC-NEXT: "pypto.alloc"() <{alloc_name = "mine", slots = 1 : i64}> : () -> !pypto.alloc<mat>
// GENERIC:      "pypto.bind"(%{{\w+}}, %{{\w+}}, %{{\w+}}) : (!pypto.tile<64x64xf32, vec>, !pypto.alloc<vec>, index) -> !pypto.tile<64x64xf32, vec>
// GENERIC:      "pypto.bind"(%{{\w+}}, %{{\w+}}) {tag} : (!pypto.tile<64x64xf32, mat>, !pypto.alloc<mat>) -> !pypto.tile<64x64xf32, mat>

// The allocation type of every space.
func.func @spaces() {
  %v = pypto.alloc "v" : !pypto.alloc<vec>
  %m = pypto.alloc "m" : !pypto.alloc<mat>
  %l = pypto.alloc "l" : !pypto.alloc<left>
  %r = pypto.alloc "r" : !pypto.alloc<right>
  %a = pypto.alloc "a" slots 16 : !pypto.alloc<acc>
  %b = pypto.alloc "b" : !pypto.alloc<bias>
  func.return
}
// CHECK-LABEL: func.func @spaces() {
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "v" : !pypto.alloc<vec>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "m" : !pypto.alloc<mat>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "l" : !pypto.alloc<left>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "r" : !pypto.alloc<right>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "a" slots 16 : !pypto.alloc<acc>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "b" : !pypto.alloc<bias>

// The same name in two functions: two allocations.
func.func @other() {
  %v = pypto.alloc "v" : !pypto.alloc<vec>
  func.return
}
// CHECK-LABEL: func.func @other() {
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "v" : !pypto.alloc<vec>
