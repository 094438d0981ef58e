// The stages advisor: per pipeline, the candidates (time per original
// iteration, bound, efficiency, peak bytes) and the smallest stages within 5%
// of the bound that fits in memory.

// RUN: pypto-report %examples/matmul_k_loop.mlir --suggest-stages | filecheck %s --check-prefix=MATMUL
// RUN: pypto-report %s --suggest-stages --max-stages 3 | filecheck %s

// MATMUL:      stages advisor: @matmul_k_loop: pypto.pipeline at {{.*}}matmul_k_loop.mlir:9:3, stages 2
// MATMUL-NEXT:   stages   time  bound  efficiency  mat bytes  left bytes  right bytes  acc bytes  fits
// MATMUL-NEXT:   1       752.0  672.0       89.4%      34816        2048        32768      16384   yes
// MATMUL-NEXT:   2       672.0  672.0      100.0%      69632        4096        65536      16384   yes
// MATMUL-NEXT:   3       672.0  672.0      100.0%     104448        6144   98304 OVER      16384    no
// MATMUL:        suggestion: stages 2 (the smallest within 5% of the bound that fits)

// Two pipelines: each gets its own table. The second runs only twice, so
// no more than 2 stages are tried.

func.func @two(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  pypto.pipeline %j = %c0 to %c2 step %c1 stages 1 {
    %off = arith.muli %j, %c128 : index
    %t = pypto.tile.load %out[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<128xf32, vec>
    pypto.tile.store %y, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}


// CHECK:      stages advisor: @two: pypto.pipeline at {{.*}}advisor.mlir:25:3, stages 1
// CHECK-NEXT:   stages  time  bound  efficiency  vec bytes  fits
// CHECK-NEXT:   1       114.0   72.0       63.2%       1024   yes
// CHECK-NEXT:   2       72.0   72.0      100.0%       2048   yes
// CHECK-NEXT:   3       72.0   72.0      100.0%       3072   yes
// CHECK-NEXT:   suggestion: stages 2 (the smallest within 5% of the bound that fits)
// CHECK-EMPTY:
// CHECK-NEXT: stages advisor: @two: pypto.pipeline at {{.*}}advisor.mlir:31:3, stages 1
// CHECK-NEXT:   stages  time  bound  efficiency  vec bytes  fits
// CHECK-NEXT:   1       114.0   72.0       63.2%       1024   yes
// CHECK-NEXT:   2       72.0   72.0      100.0%       2048   yes
// CHECK-NEXT:   suggestion: stages 2
