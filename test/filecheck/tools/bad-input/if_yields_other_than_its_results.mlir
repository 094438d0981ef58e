// An `scf.if` whose branch yields other than its results (here nothing)
// verifies in xDSL, which checks no yield against the results; the
// interpreter then failed without a location and the PyPTO target with an
// internal error (found by the mutation campaign's export step). Our tools'
// verifier rejects it at the `scf.if`; stock xdsl-opt's target refuses it.

// RUN: not pypto-opt %s 2>&1 | filecheck %s
// RUN: not pypto-run %s --index c=0 2>&1 | filecheck %s
// RUN: not xdsl-opt %s -t pypto 2>&1 | filecheck %s --check-prefix=TARGET

func.func @f(%c: i1) -> index {
  %z = arith.constant 0 : index
  %r = scf.if %c -> (index) {
    scf.yield %z : index
  } else {
    %t = arith.constant 1 : index
  }
  func.return %r : index
}

// CHECK:       if_yields_other_than_its_results.mlir:13:3: error: 'scf.if' op region #1 yields (), but the results are (index)
// CHECK-NEXT:  {{^}}  %r = scf.if %c -> (index) {
// CHECK-NOT:   Traceback
// TARGET:      error: 'scf.if' op has no PyPTO form: a branch yields other than its results
// TARGET-NOT:  Traceback
