// Without errors pypto-opt prints exactly what xdsl-opt prints, with the same
// flags: custom and generic form, passes, split input, stdin and -o.

// RUN: xdsl-opt %s > %t.xdsl && pypto-opt %s | diff %t.xdsl -
// RUN: pypto-opt %s -o %t.out && diff %t.xdsl %t.out
// RUN: pypto-opt < %s | diff %t.xdsl -
// RUN: xdsl-opt %s --print-op-generic > %t.xdsl && pypto-opt %s --print-op-generic | diff %t.xdsl -
// RUN: xdsl-opt %s -p canonicalize,cse > %t.xdsl && pypto-opt %s -p canonicalize,cse | diff %t.xdsl -
// RUN: xdsl-opt %s --split-input-file > %t.xdsl && pypto-opt %s --split-input-file | diff %t.xdsl -
// RUN: xdsl-opt %examples/matmul_k_loop.mlir > %t.xdsl && pypto-opt %examples/matmul_k_loop.mlir | diff %t.xdsl -
// RUN: pypto-opt %s | filecheck %s

func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %c128 = arith.constant 128 : index
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %one = arith.constant 1.0 : f32
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// -----

func.func @second_chunk(%t: !pypto.tile<8xf32, vec>) -> !pypto.tile<8xf32, vec> {
  %e = pypto.tile.exp %t : !pypto.tile<8xf32, vec>
  func.return %e : !pypto.tile<8xf32, vec>
}

// CHECK: pypto.pipeline
// CHECK: func.func @second_chunk
