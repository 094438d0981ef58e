// A loop bound that names the loop's own induction variable (xDSL leaves it a
// forward reference, whose owner then raises ValueError) is a located
// diagnostic; exit code 1, no traceback.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s

func.func @f() {
  %lb = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %lb to %i step %c1 stages 2 {
  }
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:11:3: error: {{.*}}'pypto.pipeline'{{.*}}
// CHECK-NEXT: {{^}}  pypto.pipeline %i = %lb to %i step %c1 stages 2 {
// CHECK-NOT:  Traceback
