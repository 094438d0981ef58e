// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s

// overlap_stores = false: stores are compute, so they keep their place among
// the computes (M0 S0 M1 S1) while the loads still go first.

// CHECK-LABEL: func.func @no_overlap_stores
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %b = pypto.tile.load %x[%c64]
// CHECK-NEXT:      %ea = pypto.tile.exp %a
// CHECK-NEXT:      pypto.tile.store %ea, %out[%c0]
// CHECK-NEXT:      %eb = pypto.tile.exp %b
// CHECK-NEXT:      pypto.tile.store %eb, %out[%c64]
// CHECK-NEXT:    }
func.func @no_overlap_stores(%x: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 overlap_stores = false {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    %ea = pypto.tile.exp %a : !pypto.tile<64xf32, vec>
    pypto.tile.store %ea, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    %eb = pypto.tile.exp %b : !pypto.tile<64xf32, vec>
    pypto.tile.store %eb, %out[%c64] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  }
  func.return
}

// -----

// double_buffer_acc = true on a lowered stages 4 matmul body: loads and L1 ->
// L0 extracts first (original order), then depth-two chunks M0 M1 S0 S1 M2 M3
// S2 S3; then the stage of each matmul into acc is rotated mod 2 (two L0C
// buffers), so M2 and M3 reuse the buffers of M0 and M1. The policy
// properties disappear with the demotion.

// CHECK-LABEL: func.func @double_buffer_acc
// CHECK:         scf.for %i = %c0 to %c4 step %c4 {
// CHECK-NEXT:      %a0 = pypto.tile.load
// CHECK-NEXT:      %b0 = pypto.tile.load
// CHECK-NEXT:      %l0 = pypto.tile.extract
// CHECK-NEXT:      %r0 = pypto.tile.extract
// CHECK-NEXT:      %a1 = pypto.tile.load
// CHECK-NEXT:      %b1 = pypto.tile.load
// CHECK-NEXT:      %l1 = pypto.tile.extract
// CHECK-NEXT:      %r1 = pypto.tile.extract
// CHECK-NEXT:      %a2 = pypto.tile.load
// CHECK-NEXT:      %b2 = pypto.tile.load
// CHECK-NEXT:      %l2 = pypto.tile.extract
// CHECK-NEXT:      %r2 = pypto.tile.extract
// CHECK-NEXT:      %a3 = pypto.tile.load
// CHECK-NEXT:      %b3 = pypto.tile.load
// CHECK-NEXT:      %l3 = pypto.tile.extract
// CHECK-NEXT:      %r3 = pypto.tile.extract
// CHECK-NEXT:      %m0 = pypto.tile.matmul %l0, %r0 {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %m1 = pypto.tile.matmul %l1, %r1 {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %m0, %out[%c0, %c0]
// CHECK-NEXT:      pypto.tile.store %m1, %out[%c16, %c0]
// CHECK-NEXT:      %m2 = pypto.tile.matmul %l2, %r2 {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %m3 = pypto.tile.matmul %l3, %r3 {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %m2, %out[%c32, %c0]
// CHECK-NEXT:      pypto.tile.store %m3, %out[%c48, %c0]
// CHECK-NEXT:    }
func.func @double_buffer_acc(%a: !pypto.tensor<64x32xbf16>, %b: !pypto.tensor<32x32xbf16>, %out: !pypto.tensor<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c48 = arith.constant 48 : index
  pypto.pipeline %i = %c0 to %c4 step %c4 stages 1 double_buffer_acc = true {
    %a0 = pypto.tile.load %a[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<64x32xbf16> -> !pypto.tile<16x32xbf16, mat>
    %b0 = pypto.tile.load %b[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<32x32xbf16> -> !pypto.tile<32x32xbf16, mat>
    %l0 = pypto.tile.extract %a0[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
    %r0 = pypto.tile.extract %b0[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
    %m0 = pypto.tile.matmul %l0, %r0 {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m0, %out[%c0, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %a1 = pypto.tile.load %a[%c16, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<64x32xbf16> -> !pypto.tile<16x32xbf16, mat>
    %b1 = pypto.tile.load %b[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<32x32xbf16> -> !pypto.tile<32x32xbf16, mat>
    %l1 = pypto.tile.extract %a1[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<16x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
    %r1 = pypto.tile.extract %b1[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
    %m1 = pypto.tile.matmul %l1, %r1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m1, %out[%c16, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %a2 = pypto.tile.load %a[%c32, %c0] {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tensor<64x32xbf16> -> !pypto.tile<16x32xbf16, mat>
    %b2 = pypto.tile.load %b[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tensor<32x32xbf16> -> !pypto.tile<32x32xbf16, mat>
    %l2 = pypto.tile.extract %a2[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tile<16x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
    %r2 = pypto.tile.extract %b2[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
    %m2 = pypto.tile.matmul %l2, %r2 {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m2, %out[%c32, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
    %a3 = pypto.tile.load %a[%c48, %c0] {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tensor<64x32xbf16> -> !pypto.tile<16x32xbf16, mat>
    %b3 = pypto.tile.load %b[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tensor<32x32xbf16> -> !pypto.tile<32x32xbf16, mat>
    %l3 = pypto.tile.extract %a3[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tile<16x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
    %r3 = pypto.tile.extract %b3[%c0, %c0] {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xbf16, right>
    %m3 = pypto.tile.matmul %l3, %r3 {pypto.pipeline_membership = #pypto.membership<0:3>} : !pypto.tile<16x32xbf16, left>, !pypto.tile<32x32xbf16, right> -> !pypto.tile<16x32xf32, acc>
    pypto.tile.store %m3, %out[%c48, %c0] : !pypto.tile<16x32xf32, acc>, !pypto.tensor<64x32xf32>
  }
  func.return
}
