// `-p mlir-opt` without the mlir-opt executable is a one-line error (exit 1),
// not an internal error: the environment lacks a tool.

// RUN: not env XDSL_MLIR_OPT=/nonexistent/mlir-opt pypto-opt -p mlir-opt %s 2>&1 | filecheck %s

func.func @f() {
  func.return
}

// CHECK:     pypto-opt: error: the pass mlir-opt runs '/nonexistent/mlir-opt', which is not on PATH (set XDSL_MLIR_OPT to its path)
// CHECK-NOT: Traceback
// CHECK-NOT: internal error
