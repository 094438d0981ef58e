// A user's cost table (--costs): the hand-computed schedule of test_timeline.py
// (load L = 4, add V = 2, store S = 3 cycles): one buffer runs L + V = 6 per
// iteration, four stages run at the load bound, 4. The whole loop (8
// iterations): before, the last store starts at 7 x 6 + 6 = 48 and ends at
// 51; after, two lowered iterations of 16, the last store (copy 3 of the
// second) starts at 16 + 4 x 3 + 6 = 34 and ends at 37; efficiency is
// 8 x 4 / 51 = 62.7% and 32 / 37 = 86.5%. The capacity of vec is 2048 bytes
// here, less than four stages need: a warning on stderr.

// RUN: pypto-report %s --passes lower-pipeline-loops,canonicalize-io-order --costs %S/Inputs/unit-costs.json 2>%t.err | filecheck %s
// RUN: filecheck %s --check-prefix=WARN -DFILE=%s < %t.err

func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK:      @add_one: pypto.pipeline at {{.*}}costs.mlir:19:3, stages 4
// CHECK-NEXT:   cycles per original iteration  before   after
// CHECK-NEXT:   busy SCALAR                       0.0     0.0
// CHECK-NEXT:   busy MTE2                         4.0     4.0
// CHECK-NEXT:   busy VECTOR                       2.0     2.0
// CHECK-NEXT:   busy MTE3                         3.0     3.0
// CHECK-NEXT:   bound (busiest engine)            4.0     4.0
// CHECK-NEXT:   bottleneck                       MTE2    MTE2
// CHECK-NEXT:   modelled time                     6.0     4.0
// CHECK-NEXT:   efficiency (bound / time)       66.7%  100.0%
// CHECK-NEXT:   whole loop (8 iterations)        51.0    37.0
// CHECK-NEXT:   whole-loop efficiency           62.7%   86.5%
// CHECK-NEXT:   speed-up                                1.50x
// CHECK-NEXT:   peak vec bytes (of 2048)         1024  4096 OVER
// CHECK-NEXT:   warning: after the passes, vec needs 4096 bytes, more than its capacity of 2048

// WARN: [[FILE]]:19:3: warning: after the passes, vec needs 4096 bytes, more than its capacity of 2048
