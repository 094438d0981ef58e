// pypto-opt reports a pass failure as a compiler-style `error:` line pointing
// at the op, exits non-zero, and prints no Python traceback.

// RUN: not pypto-opt -p lower-pipeline-loops %s 2>&1 | filecheck %s

func.func @zero_step(%n: index) {
  %c0 = arith.constant 0 : index
  pypto.pipeline %i = %c0 to %n step %c0 stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK:      error-report.mlir:8:3: error: 'pypto.pipeline' op step cannot be zero
// CHECK-NEXT:   pypto.pipeline %i = %c0 to %n step %c0 stages 2 {
// CHECK-NEXT:   ^^^^^^^^^^^^^^
// CHECK-NOT:  Traceback
