// auto-stages on a pipeline written with more stages than the advisor tries
// (MAX_ADVISED_STAGES, 64): the advice is among 1 to 64 (here, at most the
// trip count), in the three tools alike, never an internal error; the
// results stay the same.

// RUN: pypto-opt %s -p 'lower-pipeline-loops{auto-stages=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK -DFILE=%s
// RUN: pypto-opt %s -p 'lower-pipeline-loops{auto-stages=true}' 2>/dev/null | filecheck %s
// RUN: pypto-run %s --passes 'lower-pipeline-loops{auto-stages=true}' 2>/dev/null | filecheck %s --check-prefix=SAME
// RUN: pypto-report %s --passes 'lower-pipeline-loops{auto-stages=true}' 2>/dev/null | filecheck %s --check-prefix=REPORT -DFILE=%s

func.func @many(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 65 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  pypto.pipeline %j = %c0 to %c8 step %c1 stages 4294967296 {
    %off = arith.muli %j, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  pypto.pipeline %k = %c0 to %c8 step %c1 stages 9223372036854775807 {
    %off = arith.muli %k, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// REMARK:      lower-pipeline-loops: remark: @many: pypto.pipeline at [[FILE]]:16:3: stages 65 -> 3
// REMARK:      lower-pipeline-loops: remark: @many: pypto.pipeline at [[FILE]]:21:3: stages 4294967296 -> 3
// REMARK:      lower-pipeline-loops: remark: @many: pypto.pipeline at [[FILE]]:26:3: stages 9223372036854775807 -> 3
// REMARK-NOT:  error

// CHECK-LABEL: func.func @many
// CHECK-COUNT-3: arith.constant 3 : index

// SAME:        all 1 outputs bit-identical

// REPORT:      @many: pypto.pipeline at [[FILE:.*]]:16:3, stages 65
