// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{explain=true}' %s 2>&1 | filecheck %s

// The copies the lowering makes share their name hints (`%t`, `%t`); explain
// names each as the printed IR does (`%t`, `%t_1`), numbering each function
// on its own, as the printer does. The captures are the names of the IR that
// follows the explanations.

// CHECK:      canonicalize-io-order: a block of pypto.pipeline in @copies:
// CHECK-NEXT:   #4 -> #1 arith.addi ([[I1:%i_[0-9]+]]): moved
// CHECK-NEXT:   #5 -> #2 arith.muli ([[OFF1:%off_[0-9]+]]): moved
// CHECK-NEXT:   #6 -> #4 pypto.tile.load ([[T1:%t_[0-9]+]]): moved
// CHECK-NEXT: canonicalize-io-order: a block of pypto.pipeline in @again:
// CHECK-NEXT:   #4 -> #1 arith.addi ([[I1]]): moved
// CHECK-NEXT:   #5 -> #2 arith.muli ([[OFF1]]): moved
// CHECK-NEXT:   #6 -> #4 pypto.tile.load ([[T1]]): moved

// CHECK:      func.func @copies
// CHECK:        %off = arith.muli %i, %c8 : index
// CHECK-NEXT:   [[I1]] = arith.addi %i, %c1 : index
// CHECK-NEXT:   [[OFF1]] = arith.muli [[I1]], %c8 : index
// CHECK-NEXT:   %t = pypto.tile.load %x[%off]
// CHECK-NEXT:   [[T1]] = pypto.tile.load %x{{\[}}[[OFF1]]{{\]}}
// CHECK:      func.func @again
// CHECK:        [[T1]] = pypto.tile.load %x{{\[}}[[OFF1]]{{\]}}

func.func @copies(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8xf32, vec>
    pypto.tile.store %y, %out[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<64xf32>
  }
  func.return
}

func.func @again(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8xf32, vec>
    pypto.tile.store %y, %out[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<64xf32>
  }
  func.return
}
