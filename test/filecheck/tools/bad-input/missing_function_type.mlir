// A generic `func.func` without `function_type` (xDSL's verifiers raise a
// KeyError on it) is a located diagnostic; exit code 1, no traceback.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s

"func.func"() <{sym_name = "f"}> ({
  "func.return"() : () -> ()
}) : () -> ()

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:8:3: error: 'func.return' op {{.*}}function_type
// CHECK-NEXT: {{^}}  "func.return"() : () -> ()
// CHECK-NOT:  Traceback
