// PyPTO binds a tile on the annotation of the op computing it: a binding
// that is not the only use of such an op's tile in its block, or whose slot
// index is computed after that op, has no PyPTO form (an error of -t pypto
// at the binding).

// RUN: pypto-opt %s --split-input-file --verify-diagnostics -t pypto | filecheck %s

func.func @other_uses(%x: !pypto.tensor<64xf32>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %l = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  %t = pypto.bind %l to %a : !pypto.tile<64xf32, vec>
  pypto.tile.store %l, %x[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
  func.return
}
// CHECK:      has no PyPTO form: PyPTO binds a tile where an op computes it, and this tile is not the result of a tile op of the block whose only use is this binding
// CHECK:      %t = "pypto.bind"(%l, %a)

// -----

func.func @parameter(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = pypto.bind %t to %a : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      has no PyPTO form: PyPTO binds a tile where an op computes it
// CHECK:      %b = "pypto.bind"(%t, %a)

// -----

func.func @slot_after(%x: !pypto.tensor<64xf32>, %i: index) {
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %l = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
  %k = arith.remsi %i, %c2 : index
  %t = pypto.bind %l to %a[%k] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      uses a value before its definition, which has no PyPTO form
// CHECK:      %t = "pypto.bind"(%l, %a, %k)
