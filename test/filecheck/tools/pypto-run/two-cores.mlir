// A cube kernel that names its vector kernel runs with it on two cores, each
// printed; skewed, the pair gives the same outputs. The cube's stages 4 ask
// for depth 3, the FIFOs hold 2: the skew stays at depth 2 (depth 3 would
// deadlock: the cube pushes six tiles before its first pop, the pair's FIFOs
// let at most five through). A pop nothing answers is a deadlock naming both
// waiting ops.

// RUN: pypto-run %s --entry cube --passes 'skew-cross-core-pipeline{explain=true}' | filecheck %s
// RUN: pypto-run %s --entry cube --passes 'skew-cross-core-pipeline{explain=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN
// RUN: sed 's/^    %%c = pypto.tile.sub/    %%extra = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>\n    %%c = pypto.tile.sub/' %s > %t.mlir
// RUN: not pypto-run %t.mlir --entry cube 2>&1 | filecheck %s --check-prefix=DEADLOCK -DFILE=%t.mlir

func.func @cube(%q: !pypto.tensor<64x8xf32>, %out: !pypto.tensor<64x8xf32>) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 2 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  pypto.pipeline %i = %c0 to %c6 step %c1 stages 4 {
    %row = arith.muli %i, %c4 : index
    %qa = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
    %rs = pypto.tile.add %qa, %qa : !pypto.tile<4x8xf32, vec>
    pypto.tile.tpush_to_aiv %rs : !pypto.tile<4x8xf32, vec>
    %e = pypto.tile.tpop_from_aiv : !pypto.tile<4x8xf32, vec>
    %oi = pypto.tile.mul %e, %e : !pypto.tile<4x8xf32, vec>
    pypto.tile.store %oi, %out[%row, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<64x8xf32>
  }
  func.return
}
func.func @vec(%w: !pypto.tensor<64x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  pypto.pipeline %i = %c0 to %c6 step %c1 stages 2 {
    %row = arith.muli %i, %c4 : index
    %s = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>
    %wa = pypto.tile.load %w[%row, %c0] : !pypto.tensor<64x8xf32> -> !pypto.tile<4x8xf32, vec>
    %c = pypto.tile.sub %s, %wa : !pypto.tile<4x8xf32, vec>
    pypto.tile.tpush_to_aic %c : !pypto.tile<4x8xf32, vec>
  }
  func.return
}

// CHECK:      @cube: seed 0
// CHECK:      %out  written
// CHECK:      @vec: seed 1
// CHECK:      after --passes 'skew-cross-core-pipeline{explain=true}': all 3 outputs bit-identical
// EXPLAIN:      skew-cross-core-pipeline: @cube: pypto.pipeline over %i, stages 4: skewed: depth 2 (asked 3, FIFO depth 2, trip 6)
// EXPLAIN-NEXT: skew-cross-core-pipeline: @vec: pypto.pipeline over %i, stages 2: demoted

// DEADLOCK: error: deadlock: @cube waits at pypto.tile.tpop_from_aiv ([[FILE]]:{{[0-9]+}}:5) for a tile in the empty aiv_to_aic FIFO; @vec waits at pypto.tile.tpop_from_aic ([[FILE]]:{{[0-9]+}}:5) for a tile in the empty aic_to_aiv FIFO
