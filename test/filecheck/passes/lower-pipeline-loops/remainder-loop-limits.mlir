// remainder=loop: max-copies counts the copies it emits, F + 1 for dynamic
// bounds (the cascade's F(F-1)/2 would be 4950 here), at most F + 1 for
// static ones; a remainder other than cascade or loop is a diagnostic.

// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop max-copies=100}' %s --split-input-file --verify-diagnostics | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops{remainder=loop max-copies=101}' %s | filecheck %s --check-prefix=FITS
// RUN: not pypto-opt -p 'lower-pipeline-loops{remainder=tail}' %s 2>&1 | filecheck %s --check-prefix=BAD

func.func @dynamic(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 100 {
    "test.op"(%i) : (index) -> ()
  }
  func.return
}

// CHECK: lowering would create 101 copies of the loop body (stages 100 with a dynamic trip count: 100 in the main loop and 1 in the remainder loop), more than max-copies=100; lower `stages`, or raise the limit with lower-pipeline-loops{max-copies=N}

// FITS-COUNT-100: "test.op"
// FITS:           scf.for
// FITS-NEXT:        "test.op"
// FITS-NOT:       "test.op"

// BAD: pypto-opt: error: --passes: pass 'lower-pipeline-loops': option 'remainder' takes one of cascade, loop, got 'tail'
