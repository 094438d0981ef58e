// A pipeline the gates admit keeps one body: each load at its top level
// takes slot %i % F of an allocation of F slots of its own, declared at the
// top of the function (`pipe_<tile>`), and the loop becomes an scf.for with
// the same bounds. A second run changes nothing.

// RUN: xdsl-opt -p lower-pipeline-to-slots %s | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-to-slots %s | xdsl-opt -p lower-pipeline-to-slots | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-to-slots %s | %roundtrip-generic | filecheck %s

func.func @two_loads(%x: !pypto.tensor<1024xf32>, %y: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 3 {
    %off = arith.muli %i, %c128 : index
    %a = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %b = pypto.tile.load %y[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %s = pypto.tile.add %a, %b : !pypto.tile<128xf32, vec>
    pypto.tile.store %s, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @two_loads(
// CHECK-NEXT:    %[[PA:\w+]] = pypto.alloc "pipe_a" slots 3 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[PB:\w+]] = pypto.alloc "pipe_b" slots 3 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[C0:\w+]] = arith.constant 0 : index
// CHECK-NEXT:    %[[C1:\w+]] = arith.constant 1 : index
// CHECK-NEXT:    %{{\w+}} = arith.constant 128 : index
// CHECK-NEXT:    scf.for %[[I:\w+]] = %[[C0]] to %{{\w+}} step %[[C1]] {
// CHECK-NEXT:      %[[F:\w+]] = arith.constant 3 : index
// CHECK-NEXT:      %[[SLOT:\w+]] = arith.remsi %[[I]], %[[F]] : index
// CHECK-NEXT:      %[[OFF:\w+]] = arith.muli
// CHECK-NEXT:      %[[A:\w+]] = pypto.tile.load %{{\w+}}[%[[OFF]]]
// CHECK-NEXT:      %[[AS:\w+]] = pypto.bind %[[A]] to %[[PA]][%[[SLOT]]] : !pypto.tile<128xf32, vec>
// CHECK-NEXT:      %[[B:\w+]] = pypto.tile.load %{{\w+}}[%[[OFF]]]
// CHECK-NEXT:      %[[BS:\w+]] = pypto.bind %[[B]] to %[[PB]][%[[SLOT]]] : !pypto.tile<128xf32, vec>
// CHECK-NEXT:      %[[S:\w+]] = pypto.tile.add %[[AS]], %[[BS]]
// CHECK-NEXT:      pypto.tile.store %[[S]]
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// A load the author bound stays the author's, and does not decline the
// loop; the other load rotates. Names already declared are not taken.
func.func @author_bound(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %mine = pypto.alloc "mine" slots 2 : !pypto.alloc<vec>
  %taken = pypto.alloc "pipe_t" : !pypto.alloc<mat>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %k = arith.remsi %i, %c2 : index
    %m = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %mb = pypto.bind %m to %mine[%k] : !pypto.tile<128xf32, vec>
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %s = pypto.tile.add %mb, %t : !pypto.tile<128xf32, vec>
    pypto.tile.store %s, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
// CHECK-LABEL: func.func @author_bound(
// CHECK-NEXT:    %[[PT:\w+]] = pypto.alloc "pipe_t_1" slots 2 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[MINE:\w+]] = pypto.alloc "mine" slots 2 : !pypto.alloc<vec>
// CHECK-NEXT:    %{{\w+}} = pypto.alloc "pipe_t" : !pypto.alloc<mat>
// CHECK:         scf.for
// CHECK-NEXT:      %{{\w+}} = arith.constant 2 : index
// CHECK-NEXT:      %[[SLOT:\w+]] = arith.remsi
// CHECK-NEXT:      %[[K:\w+]] = arith.remsi
// CHECK-NEXT:      %[[M:\w+]] = pypto.tile.load
// CHECK-NEXT:      %{{\w+}} = pypto.bind %[[M]] to %[[MINE]][%[[K]]]
// CHECK-NEXT:      %[[T:\w+]] = pypto.tile.load
// CHECK-NEXT:      %{{\w+}} = pypto.bind %[[T]] to %[[PT]][%[[SLOT]]]

// Outer loops first: both levels rotate, each with its own induction
// variable, the inner one's allocation counted with the outer one's.
func.func @nested(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %o = %c0 to %c4 step %c1 stages 2 {
    %r = pypto.tile.load %x[%o] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    pypto.pipeline %i = %c0 to %c4 step %c1 stages 4 {
      %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
      %s = pypto.tile.add %r, %t : !pypto.tile<64xf32, vec>
      pypto.tile.store %s, %out[%i] : !pypto.tile<64xf32, vec>, !pypto.tensor<1024xf32>
    }
  }
  func.return
}
// CHECK-LABEL: func.func @nested(
// CHECK-NEXT:    %[[PR:\w+]] = pypto.alloc "pipe_r" slots 2 : !pypto.alloc<vec>
// CHECK-NEXT:    %[[PT:\w+]] = pypto.alloc "pipe_t" slots 4 : !pypto.alloc<vec>
// CHECK:         scf.for %[[O:\w+]] =
// CHECK-NEXT:      %{{\w+}} = arith.constant 2 : index
// CHECK-NEXT:      %[[OS:\w+]] = arith.remsi %[[O]]
// CHECK-NEXT:      %[[R:\w+]] = pypto.tile.load
// CHECK-NEXT:      %{{\w+}} = pypto.bind %[[R]] to %[[PR]][%[[OS]]]
// CHECK-NEXT:      scf.for %[[I:\w+]] =
// CHECK-NEXT:        %{{\w+}} = arith.constant 4 : index
// CHECK-NEXT:        %[[IS:\w+]] = arith.remsi %[[I]]
// CHECK-NEXT:        %[[T:\w+]] = pypto.tile.load
// CHECK-NEXT:        %{{\w+}} = pypto.bind %[[T]] to %[[PT]][%[[IS]]]

// stages 1 is left for canonicalize-io-order, and does not decline the
// loops nested in it; mat and acc are slot spaces too; iter_args stay.
func.func @stages_one(%x: !pypto.tensor<1024xf32>, %acc: !pypto.tile<16x16xf32, acc>) -> !pypto.tile<16x16xf32, acc> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %o = %c0 to %c4 step %c1 stages 1 {
    %u = pypto.tile.load %x[%o] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%u) : (!pypto.tile<64xf32, vec>) -> ()
  }
  %r = pypto.pipeline %i = %c4 to %c4 step %c1 stages 2 iter_args(%a = %acc) -> (!pypto.tile<16x16xf32, acc>) {
    %m = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, mat>
    "test.op"(%m) : (!pypto.tile<128xf32, mat>) -> ()
    pypto.yield %a : !pypto.tile<16x16xf32, acc>
  }
  func.return %r : !pypto.tile<16x16xf32, acc>
}
// CHECK-LABEL: func.func @stages_one(
// CHECK-NEXT:    %[[PM:\w+]] = pypto.alloc "pipe_m" slots 2 : !pypto.alloc<mat>
// CHECK:         pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 1 {
// CHECK-NEXT:      %[[U:\w+]] = pypto.tile.load
// CHECK-NEXT:      "test.op"(%[[U]])
// CHECK:         %{{\w+}} = scf.for %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} iter_args(%[[A:\w+]] = %{{\w+}}) -> (!pypto.tile<16x16xf32, acc>) {
// CHECK:           %{{\w+}} = pypto.bind %{{\w+}} to %[[PM]][%{{\w+}}] : !pypto.tile<128xf32, mat>
// CHECK:           scf.yield %[[A]] : !pypto.tile<16x16xf32, acc>

// A function declaration (no body) beside them is left as it is.
func.func private @declared(index)
// CHECK-LABEL: func.func private @declared(index)
