// From -2^63 to 2^63-1 by 2^62, a 4-stage pipeline would step by 2^64, which
// overflows the 64-bit index type: lower-pipeline-loops says so in a located
// diagnostic; exit code 1, no traceback. (The loop itself runs 4 iterations,
// which pypto-run interprets first.)

// RUN: not pypto-opt %s -p lower-pipeline-loops 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s --passes lower-pipeline-loops 2>&1 >/dev/null | filecheck %s -DFILE=%s

func.func @f(%x: !pypto.tensor<16xf32>) {
  %lb = arith.constant -9223372036854775808 : index
  %ub = arith.constant 9223372036854775807 : index
  %step = arith.constant 4611686018427387904 : index
  pypto.pipeline %i = %lb to %ub step %step stages 4 {
    %c0 = arith.constant 0 : index
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:13:3: error: {{.*}}'pypto.pipeline' op {{.*}}overflow
// CHECK-NEXT: {{^}}  pypto.pipeline %i = %lb to %ub step %step stages 4 {
// CHECK-NOT:  Traceback
