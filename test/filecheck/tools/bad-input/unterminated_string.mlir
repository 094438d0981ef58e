// A stray `"` leaves a string unterminated on its line: a parse error at
// once (xDSL 0.75's lexer backtracks exponentially on it; our tools use a
// lexer that does not; stock xdsl-opt still hangs).

// RUN: not pypto-opt %s 2>&1 | filecheck %s
// RUN: not pypto-run %s 2>&1 | filecheck %s

func.func @f(%x: !p"ypto.tensor<1024x8xf32>, %n0: index) -> (f32) {
  func.return
}

// CHECK:     unterminated_string.mlir:[[# @LINE - 4]]:
// CHECK-NOT: Traceback
