// order=modelled simulates candidate orders of each loop body on the
// schedule model (the bundled cost table) and keeps the fastest, the earlier
// candidate on a tie; explain=true names them with their modelled times.
// A block that is not a loop body (here the scf.if's) gets `category`.

// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=modelled explain=true}' %s 2>&1 >/dev/null | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=modelled}' %s | filecheck %s --check-prefix=IR
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=modelled explain=true}' %examples/row_softmax.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=LOCAL
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=modelled search-budget=0 explain=true}' %examples/row_softmax.mlir 2>&1 >/dev/null | filecheck %s --check-prefix=BUDGET

// On row_softmax (stages 2) the modulo schedule's order is the fastest
// candidate, and no single move makes it faster: the local search says so,
// and again from the next fastest candidates (category, then the input).

// LOCAL:      order=modelled: [[KEPT:modulo II=[0-9.e+]+]] kept, [[BEST:[0-9.e+]+]] cycles per loop iteration
// LOCAL:        [[KEPT]]: [[BEST]]
// LOCAL-NEXT:   local search from [[KEPT]]: ({{[0-9]+}} orders tried, none faster)
// LOCAL-NEXT:   local search from category: ({{[0-9]+}} orders tried, none faster)
// LOCAL-NEXT:   local search from input: ({{[0-9]+}} orders tried, none faster)

// With search-budget=0 only the input and `category` are simulated (always).

// BUDGET:      order=modelled: category kept, {{[0-9.e+]+}} cycles per loop iteration
// BUDGET-NEXT:   input: {{[0-9.e+]+}}
// BUDGET-NEXT:   category: {{[0-9.e+]+}}
// BUDGET-NEXT:   (the later ones not tried: the search budget of 0 simulated ops is spent)

// Eight loads first overfill the load queue: the input order is kept. It
// runs at the body's bound (the busiest unit), so no later candidate can be
// faster: none is tried.

// CHECK:      canonicalize-io-order: a block of pypto.pipeline in @loads_first:
// CHECK-NEXT:   order=modelled: input kept, [[TIME:[0-9.e+]+]] cycles per loop iteration
// CHECK-NEXT:     input: [[TIME]]
// CHECK-NEXT:     (the later ones not tried: input runs at the bound)
// CHECK-NEXT: canonicalize-io-order:

// IR-LABEL: func.func @loads_first
// IR:      scf.for
// IR-NEXT:   %off = arith.muli
// IR-NEXT:   %t = pypto.tile.load %x[%off]
// IR-NEXT:   %y = pypto.tile.adds %t
// IR-NEXT:   pypto.tile.store %y
// IR-NEXT:   %i_1 = arith.addi
func.func @loads_first(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 8 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// The kept candidate's time is the smallest; its line repeats it. An order
// equal to an earlier candidate's is not simulated again. Then the local
// search moves single ops of the fastest: here it keeps moves, and its line
// (the kept one) names where it started and how many orders it tried. The
// scf.if block inside the body is no loop body: no search there.

// CHECK:      canonicalize-io-order: a block of pypto.pipeline in @read_kernel:
// CHECK-NEXT:   order=modelled: [[KEPT:.+]] kept, [[BEST:[0-9.e+]+]] cycles per loop iteration
// CHECK-NEXT:     input: {{[0-9.e+]+}}
// CHECK-NEXT:     category: {{[0-9.e+]+}}
// CHECK-NEXT:     engine D=0: {{[0-9.e+]+}}
// CHECK-NEXT:     engine D=1: (same order as engine D=0)
// CHECK:          [[KEPT]]: [[BEST]] ({{[0-9]+}} orders tried)
// CHECK-NOT:  order=modelled

// IR-LABEL: func.func @read_kernel
// IR:       scf.if
// IR-NEXT:    %c = pypto.tile.load %z
// IR-NEXT:    %d = pypto.tile.load %z
// IR-NEXT:    %m = pypto.tile.mul %c, %c
func.func @read_kernel(%x: !pypto.tensor<64x64xf32>, %z: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>, %flag: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %r = pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 iter_args(%acc = %one) -> (f32) {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8x64xf32, vec>
    pypto.tile.store %y, %out[%off, %c0] : !pypto.tile<8x64xf32, vec>, !pypto.tensor<64x64xf32>
    %u = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<1x64xf32, vec>
    %e = pypto.tile.read %u[%c0, %c0] : !pypto.tile<1x64xf32, vec>
    %s = arith.addf %acc, %e : f32
    scf.if %flag {
      %c = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
      %m = pypto.tile.mul %c, %c : !pypto.tile<8x64xf32, vec>
      %d = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
      pypto.tile.store %m, %out[%off, %c0] : !pypto.tile<8x64xf32, vec>, !pypto.tensor<64x64xf32>
    }
    pypto.yield %s : f32
  }
  func.return %r : f32
}
