// An error the IR verifier raises while the parser builds an attribute is a
// diagnostic in the three tools alike: exit code 1, no internal error.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-report %s 2>&1 | filecheck %s -DFILE=%s

func.func @f() {
  %a = arith.constant 5 : i1
  func.return
}

// CHECK-NOT: internal error
// CHECK:     {{^}}[[FILE]]: error: Integer value 5 is out of range for type i1 which supports values in the range [-1, 2){{$}}
