// A row reduction's scratch tile is an ordinary operand to both passes: each
// stage copy of the body reads its own copy's scratch (a tile of the body) or
// the one from outside the loop, and the reordering keeps each scratch before
// its row op.

// RUN: pypto-opt %s -p lower-pipeline-loops,canonicalize-io-order | filecheck %s

func.func @scratch(%x: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x1xf32>, %outer: !pypto.tile<16x64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  pypto.pipeline %i = %c0 to %c64 step %c16 stages 2 {
    %t = pypto.tile.load %x[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    %tmp = pypto.tile.full %zero : f32 -> !pypto.tile<16x64xf32, vec>
    %m = pypto.tile.row_max %t, %tmp : !pypto.tile<16x64xf32, vec>, !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
    %s = pypto.tile.row_sum %t, %outer : !pypto.tile<16x64xf32, vec>, !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
    %y = pypto.tile.add %m, %s : !pypto.tile<16x1xf32, vec>
    pypto.tile.store %y, %out[%i, %c0] : !pypto.tile<16x1xf32, vec>, !pypto.tensor<64x1xf32>
  }
  func.return
}

// CHECK:      scf.for %[[I:\w+]] = %{{\w+}} to %{{\w+}} step %{{\w+}} {
// CHECK-NEXT:   %[[I1:\w+]] = arith.addi %[[I]], %{{\w+}} : index
// CHECK-NEXT:   %[[T0:\w+]] = pypto.tile.load %x[%[[I]], %{{\w+}}] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   %[[T1:\w+]] = pypto.tile.load %x[%[[I1]], %{{\w+}}] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   %[[TMP0:\w+]] = pypto.tile.full %zero {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   %{{\w+}} = pypto.tile.row_max %[[T0]], %[[TMP0]] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x64xf32, vec>, !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
// CHECK-NEXT:   %{{\w+}} = pypto.tile.row_sum %[[T0]], %outer {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:   %{{\w+}} = pypto.tile.add
// CHECK-NEXT:   pypto.tile.store
// CHECK-NEXT:   %[[TMP1:\w+]] = pypto.tile.full %zero {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   %{{\w+}} = pypto.tile.row_max %[[T1]], %[[TMP1]] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   %{{\w+}} = pypto.tile.row_sum %[[T1]], %outer {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:   %{{\w+}} = pypto.tile.add
// CHECK-NEXT:   pypto.tile.store
// CHECK-NEXT: }
