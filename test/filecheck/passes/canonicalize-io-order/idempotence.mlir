// Running the pass twice gives the same IR as running it once, including with
// double_buffer_acc (the rotated stages only ever appear in scf.for bodies).
// RUN: xdsl-opt -p canonicalize-io-order %s > %t.once.mlir
// RUN: xdsl-opt -p canonicalize-io-order %t.once.mlir | diff %t.once.mlir -
// RUN: xdsl-opt -p canonicalize-io-order,canonicalize-io-order %s | diff %t.once.mlir -
// RUN: filecheck %s < %t.once.mlir

// An already canonical body is left as it is.

// CHECK-LABEL: func.func @canonical
// CHECK:         scf.for %i = %c0 to %c8 step %c2 {
// CHECK-NEXT:      %off = arith.muli %i, %c64 : index
// CHECK-NEXT:      %off_1 = arith.addi %off, %c64 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      pypto.tile.store %y, %out[%off]
// CHECK-NEXT:      %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %y_1, %out[%off_1]
// CHECK-NEXT:    }
func.func @canonical(%x: !pypto.tensor<512xf32>, %out: !pypto.tensor<512xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c8 step %c2 stages 1 {
    %off = arith.muli %i, %c64 : index
    %off_1 = arith.addi %off, %c64 : index
    %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<512xf32> -> !pypto.tile<64xf32, vec>
    %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<512xf32> -> !pypto.tile<64xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %y, %out[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<512xf32>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %y_1, %out[%off_1] : !pypto.tile<64xf32, vec>, !pypto.tensor<512xf32>
  }
  func.return
}

// A stages 4 matmul body with double_buffer_acc, in lowering order.

// CHECK-LABEL: func.func @double_buffer_acc
// CHECK-COUNT-4: pypto.tile.matmul
func.func @double_buffer_acc(%l: !pypto.tile<16x32xbf16, left>, %r: !pypto.tile<32x32xbf16, right>, %out: !pypto.tensor<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  pypto.pipeline %i = %c0 to %c4 step %c4 stages 1 double_buffer_acc = true {
    %m0 = pypto.tile.matmul %l, %r {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m0, %out[%c0, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %m1 = pypto.tile.matmul %l, %r {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m1, %out[%c16, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %m2 = pypto.tile.matmul %l, %r {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m2, %out[%c32, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %m3 = pypto.tile.matmul %l, %r {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m3, %out[%c48, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
  }
  func.return
}
