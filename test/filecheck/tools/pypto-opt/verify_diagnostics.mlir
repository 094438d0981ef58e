// With --verify-diagnostics pypto-opt behaves as xdsl-opt: the messages and
// the annotated IR go to stdout and the run succeeds.

// RUN: xdsl-opt %s --split-input-file --verify-diagnostics > %t.xdsl
// RUN: pypto-opt %s --split-input-file --verify-diagnostics | diff %t.xdsl -
// RUN: pypto-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @bad_load(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}

// -----

func.func @bad_matmul(%a: !pypto.tile<16x64xbf16, mat>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, mat>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
  func.return
}

// CHECK:      expected 2 tensor offsets (one per dimension), got 1
// CHECK:      | Operation does not verify: expected 2 tensor offsets (one per dimension), got 1
// CHECK:      lhs must be in memory space left, got mat
// CHECK:      | Operation does not verify: lhs must be in memory space left, got mat
