// A constant of a 2^40-bit integer type (xDSL's range check of the value
// runs out of memory) is a located diagnostic; exit code 1, no traceback.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s

func.func @f() -> i1099511627776 {
  %c = arith.constant 1 : i1099511627776
  func.return %c : i1099511627776
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:{{[0-9]+}}:{{[0-9]+}}: error: {{.+}}
// CHECK-NOT:  Traceback
