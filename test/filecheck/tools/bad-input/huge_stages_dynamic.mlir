// `stages 1000` with a dynamic upper bound would need a remainder cascade of
// about F^2/2 copies of the body: lower-pipeline-loops refuses (its
// max-copies limit) with a located diagnostic; exit code 1, no traceback.

// RUN: not pypto-opt %s -p lower-pipeline-loops 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s --index n=3 --passes lower-pipeline-loops 2>&1 >/dev/null | filecheck %s -DFILE=%s

func.func @f(%x: !pypto.tensor<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 1000 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:11:3: error: {{.*}}'pypto.pipeline' op {{.*}}max-copies
// CHECK-NEXT: {{^}}  pypto.pipeline %i = %c0 to %n step %c1 stages 1000 {
// CHECK-NOT:  Traceback
