// An unknown pass name is an `error:` line on stderr; exit code 1, no
// traceback. Our passes are found by name.

// RUN: not pypto-opt %s -p canonicalize,no-such-pass 2> %t.err
// RUN: filecheck %s --input-file %t.err
// RUN: not pypto-opt %s -p 'lower-pipeline-loops,canonicalize-io-order,no-such-pass' 2>&1 | filecheck %s --check-prefix=OURS

func.func @empty() {
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      pypto-opt: error: Unrecognized passes: ['no-such-pass'] (--help lists the available passes)
// CHECK-NOT:  Traceback

// OURS:      pypto-opt: error: Unrecognized passes: ['no-such-pass'] (--help lists the available passes)
