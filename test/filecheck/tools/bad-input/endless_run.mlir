// A trip count no interpreter can finish is an error, not a hang: every run
// has a budget of loop iterations and branches taken (--max-iterations).

// RUN: not pypto-run %s --entry endless 2>&1 | filecheck %s
// RUN: not pypto-run %s --entry bounded --index n=5 --max-iterations 4 2>&1 | filecheck %s --check-prefix=SMALL
// RUN: not pypto-run %s --entry bounded --index n=5 --max-iterations 5 --passes lower-pipeline-loops,convert-scf-to-cf,canonicalize 2>&1 | filecheck %s --check-prefix=CF

func.func @endless(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant 1000000000000 : index
  scf.for %i = %c0 to %big step %c1 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK:     endless_run.mlir:[[# @LINE - 7]]:3: error: scf.for: the run would exceed its budget of loop iterations and branches taken (1000000000000 needed, 1000000 left); raise it with --max-iterations (pypto-run) or max_iterations (run_kernel)
// CHECK-NOT: Traceback

func.func @bounded(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// SMALL:     error: scf.for: the run would exceed its budget of loop iterations and branches taken (5 needed, 4 left)
// The same loop in cf form: its branches spend the budget.
// CF:        error: after --passes 'lower-pipeline-loops,convert-scf-to-cf,canonicalize': cf.{{(cond_)?}}br: the run would exceed its budget
// CF-NOT:    Traceback
