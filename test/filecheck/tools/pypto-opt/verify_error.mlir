// A verifier error is one `file:line:col: error:` line on stderr naming the op
// and the problem, then the source line; exit code 1, no traceback.

// RUN: not pypto-opt %s > %t.out 2> %t.err
// RUN: filecheck %s --input-file %t.err
// RUN: not pypto-opt %s -p canonicalize 2>&1 | filecheck %s

func.func @bad_load(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{.*}}verify_error.mlir:9:3: error: 'pypto.tile.load' op expected 2 tensor offsets (one per dimension), got 1
// CHECK-NEXT:   %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
// CHECK-NEXT:   ^
// CHECK-NOT:  Traceback
