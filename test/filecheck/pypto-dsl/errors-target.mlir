// What has no PyPTO form is an error of -t pypto naming the op: pypto-opt
// locates it in the source; stock xdsl-opt ends with the same message and no
// traceback; --verify-diagnostics prints each one.

// RUN: pypto-opt %s --split-input-file --verify-diagnostics -t pypto | filecheck %s
// RUN: not pypto-opt %s -t pypto 2>&1 | filecheck %s --check-prefix=FIRST
// RUN: not xdsl-opt %s -t pypto 2>&1 | filecheck %s --check-prefix=STOCK

func.func @loop(%n: index) -> index {
  %r = scf.while (%a = %n) : (index) -> index {
    %c = arith.constant true
    scf.condition(%c) %a : index
  } do {
  ^bb0(%b: index):
    scf.yield %b : index
  }
  func.return %r : index
}

// CHECK:      has no PyPTO form
// CHECK:      "scf.while"
// CHECK-NEXT: ^^^^^^^^^^^

// -----

func.func @wide(%x: !pypto.tensor<64xf64>) {
  func.return
}

// CHECK:      type f64 has no PyPTO dtype

// -----

func.func private @declared(!pypto.tensor<64xf32>)

// CHECK:      a function declaration has no PyPTO form

// The functions are checked before any is printed: without split input, the
// declaration is the first error.

// FIRST-NOT:  Traceback
// FIRST:      {{.*}}errors-target.mlir:34:1: error: 'func.func' op a function declaration has no PyPTO form
// FIRST-NEXT: func.func private @declared(!pypto.tensor<64xf32>)
// FIRST-NOT:  Traceback
// STOCK-NOT:  Traceback
// STOCK:      {{^}}error: 'func.func' op a function declaration has no PyPTO form
// STOCK-NOT:  Traceback

// -----

func.func @carried(%x: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%t = %x) -> (!pypto.tensor<64xf32>) {
    scf.yield %t : !pypto.tensor<64xf32>
  }
  func.return
}

// CHECK:      carries a tensor value that is not a function parameter, which has no PyPTO form (the target threads the parameters itself)

// -----

func.func @absolute(%x: f32) -> f32 {
  %y = math.absf %x : f32
  func.return %y : f32
}

// CHECK:      has no PyPTO form
// CHECK:      "math.absf"

// -----

func.func @unsigned(%a: index, %b: index) -> i1 {
  %c = arith.cmpi ult, %a, %b : index
  func.return %c : i1
}

// CHECK:      has no PyPTO form (this predicate has no Python operator)

// -----

func.func @extract(%t: !pypto.tile<64xf32, vec>) -> !pypto.tile<16xf32, vec> {
  %c0 = arith.constant 0 : index
  %s = pypto.tile.extract %t[%c0] : !pypto.tile<64xf32, vec> -> !pypto.tile<16xf32, vec>
  func.return %s : !pypto.tile<16xf32, vec>
}

// CHECK:      has no PyPTO form unless it is 2-D (pl.tile.extract(t, row, col, ...))

// -----

func.func @tagged(%a: index) -> index {
  %b = arith.addi %a, %a {pypto.pipeline_membership = #pypto.membership<0:1>} : index
  func.return %b : index
}

// CHECK:      the attribute pypto.pipeline_membership has no PyPTO form here

// -----

// PyPTO's tile.full has its output in Vec (and pl.tile.move cannot reach
// Acc): a fill elsewhere, like the accumulator of examples/matmul_k_loop.mlir,
// has no PyPTO form.

func.func @acc_fill() -> !pypto.tile<16x256xf32, acc> {
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<16x256xf32, acc>
  func.return %init : !pypto.tile<16x256xf32, acc>
}

// CHECK:      pl.tile.full cannot fill pl.Mem.Acc: PyPTO's tile.full fills Vec only (an Acc accumulator starts with pl.tile.matmul)
// CHECK:      "pypto.tile.full"

// -----

// A function of several blocks (what convert-scf-to-cf makes of a loop).

// expected-error @below {{has 2 blocks, which have no PyPTO form (a method is one block of statements)}}
func.func @blocks(%c: i1) {
  cf.cond_br %c, ^bb1, ^bb1
^bb1:
  func.return
}

// CHECK:      has 2 blocks, which have no PyPTO form
