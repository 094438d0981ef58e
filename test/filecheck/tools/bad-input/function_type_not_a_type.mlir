// A generic `func.func` whose `function_type` is an integer (xDSL's verifiers
// raise an AttributeError on it) is a located diagnostic; exit code 1, no
// traceback.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s

"func.func"() <{sym_name = "f", function_type = 3 : i64}> ({
  "func.return"() : () -> ()
}) : () -> ()

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:9:3: error: 'func.return' op {{.*}}
// CHECK-NEXT: {{^}}  "func.return"() : () -> ()
// CHECK-NOT:  Traceback
