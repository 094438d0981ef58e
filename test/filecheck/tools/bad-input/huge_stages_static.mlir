// `stages 1000000` over a static trip count of 10^12 would copy the body a
// million times: lower-pipeline-loops refuses (its max-copies limit) with a
// located diagnostic; exit code 1, no traceback. pypto-run runs @main, so it
// does not interpret the 10^12 iterations, and fails in the passes.

// RUN: not pypto-opt %s -p lower-pipeline-loops 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s --entry main --passes lower-pipeline-loops 2>&1 >/dev/null | filecheck %s -DFILE=%s

func.func @main() {
  func.return
}

func.func @big(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant 1000000000000 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 1000000 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:17:3: error: {{.*}}'pypto.pipeline' op {{.*}}max-copies
// CHECK-NEXT: {{^}}  pypto.pipeline %i = %c0 to %n step %c1 stages 1000000 {
// CHECK-NOT:  Traceback
