// order=category is the default: the same output, byte for byte, on the
// inputs of the other tests of the pass.

// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %S/classification.mlir > %t.default
// RUN: xdsl-opt -p 'canonicalize-io-order{order=category}' --split-input-file %S/classification.mlir > %t.category
// RUN: diff %t.default %t.category
// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %S/dependences.mlir > %t.default
// RUN: xdsl-opt -p 'canonicalize-io-order{order=category}' --split-input-file %S/dependences.mlir > %t.category
// RUN: diff %t.default %t.category
// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %S/policy.mlir > %t.default
// RUN: xdsl-opt -p 'canonicalize-io-order{order=category}' --split-input-file %S/policy.mlir > %t.category
// RUN: diff %t.default %t.category
// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %S/scope.mlir > %t.default
// RUN: xdsl-opt -p 'canonicalize-io-order{order=category}' --split-input-file %S/scope.mlir > %t.category
// RUN: diff %t.default %t.category
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=category}' %s | filecheck %s

// The category tiers: every load first (the `read` with them), then compute
// and store per stage.

// CHECK:      scf.for
// CHECK:      %t = pypto.tile.load
// CHECK-NEXT: %u = pypto.tile.load
// CHECK-NEXT: %e = pypto.tile.read %u
// CHECK-NEXT: %s = arith.addf %acc, %e
// CHECK-NEXT: %t_1 = pypto.tile.load
// CHECK-NEXT: %u_1 = pypto.tile.load
// CHECK-NEXT: %e_1 = pypto.tile.read %u_1
// CHECK-NEXT: %s_1 = arith.addf %s, %e_1
// CHECK-NEXT: %y = pypto.tile.exp %t
// CHECK-NEXT: pypto.tile.store %y
// CHECK-NEXT: %y_1 = pypto.tile.exp %t_1
// CHECK-NEXT: pypto.tile.store %y_1
// CHECK-NEXT: scf.yield %s_1
func.func @read_hoisted(%x: !pypto.tensor<64x64xf32>, %z: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %r = pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 iter_args(%acc = %one) -> (f32) {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8x64xf32, vec>
    pypto.tile.store %y, %out[%off, %c0] : !pypto.tile<8x64xf32, vec>, !pypto.tensor<64x64xf32>
    %u = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<1x64xf32, vec>
    %e = pypto.tile.read %u[%c0, %c0] : !pypto.tile<1x64xf32, vec>
    %s = arith.addf %acc, %e : f32
    pypto.yield %s : f32
  }
  func.return %r : f32
}
