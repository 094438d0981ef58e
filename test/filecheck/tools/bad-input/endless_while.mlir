// An `scf.while` spends the run's budget of loop iterations like any loop:
// one that never ends is an error, not a hang (it once ran forever, whatever
// --max-iterations said).

// RUN: not pypto-run %s --entry endless --max-iterations 1000 2>&1 | filecheck %s
// The default budget (1,000,000) stops it within about 15 s of CPU (killed
// after 120 s, the test fails).
// RUN: not timeout 120 pypto-run %s --entry endless 2>&1 | filecheck %s
// RUN: pypto-run %s --entry count --index n=5 --max-iterations 5 | filecheck %s --check-prefix=FIVE
// RUN: not pypto-run %s --entry count --index n=5 --max-iterations 4 2>&1 | filecheck %s --check-prefix=FOUR

func.func @endless() {
  %true = arith.constant true
  scf.while () : () -> () {
    scf.condition(%true)
  } do {
    scf.yield
  }
  func.return
}

// CHECK:     endless_while.mlir:[[# @LINE - 8]]:3: error: scf.while: the run would exceed its budget of loop iterations and branches taken (1 needed, 0 left); raise it with --max-iterations (pypto-run) or max_iterations (run_kernel)
// CHECK-NOT: Traceback

func.func @count(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.while (%i = %c0) : (index) -> index {
    %more = arith.cmpi slt, %i, %n : index
    scf.condition(%more) %i : index
  } do {
  ^bb0(%j: index):
    %next = arith.addi %j, %c1 : index
    scf.yield %next : index
  }
  func.return %r : index
}

// FIVE:      result#0  i64 5
// FOUR:      error: scf.while: the run would exceed its budget of loop iterations and branches taken (1 needed, 0 left)
// FOUR-NOT:  Traceback
