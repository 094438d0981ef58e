// A cross-core loop whose step is not positive is an error at the loop,
// raised before any change (a constant bound beyond index, which the parser
// refuses, is tested in test_skew_cross_core_pipeline.py).

// RUN: xdsl-opt -p 'skew-cross-core-pipeline' --split-input-file --verify-diagnostics %s | filecheck %s

func.func @zero_step(%q: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c0 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    "test.op"(%e) : (!pypto.tile<16x64xf32, vec>) -> ()
  }
  func.return
}
// CHECK:      pypto.pipeline
// CHECK-NEXT: ^
// CHECK-NEXT: | the step must be positive, got 0

// -----

func.func @negative_step(%q: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %m1 = arith.constant -1 : index
  pypto.pipeline %i = %c4 to %c0 step %m1 stages 2 {
    %qa = pypto.tile.load %q[%i, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %qa : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<16x64xf32, vec>
    "test.op"(%e) : (!pypto.tile<16x64xf32, vec>) -> ()
  }
  func.return
}
// CHECK:      pypto.pipeline
// CHECK-NEXT: ^
// CHECK-NEXT: | the step must be positive, got -1

