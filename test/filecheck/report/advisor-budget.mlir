// The advisor's candidates of one pipeline lower at most MAX_ADVISED_OPS
// (5,000) ops together: past it, the larger stages are not tried, and the
// note says so. Here a dynamic trip count makes F(F+1)/2 copies at stages F,
// and --max-stages 64 stops at 17; auto-stages on stages 1000000 too, in
// about a second, not 20.

// RUN: pypto-report %s --suggest-stages --max-stages 64 | filecheck %s
// RUN: pypto-opt %s -p 'lower-pipeline-loops{auto-stages=true remainder=loop}' 2>&1 >/dev/null | filecheck %s --check-prefix=AUTO -DFILE=%s

func.func @f(%x: !pypto.tensor<4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %n step %c1 stages 1000000 {
    %off = arith.muli %i, %c64 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<4096xf32> -> !pypto.tile<64xf32, vec>
    %u = pypto.tile.adds %t, %one : !pypto.tile<64xf32, vec>, f32
    pypto.tile.store %u, %x[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<4096xf32>
  }
  func.return
}

// CHECK:      stages advisor: @f: pypto.pipeline at {{.*}}, stages 1000000
// CHECK:        17 {{ +}}115.4
// CHECK:        stages 18: not tried: the smaller stages lowered 5,733 ops, past the advisor's budget of 5,000
// CHECK:        stages 64: not tried: the smaller stages lowered 5,733 ops, past the advisor's budget of 5,000

// AUTO:       lower-pipeline-loops: remark: @f: pypto.pipeline at [[FILE]]:{{[0-9]+}}:3: stages 1000000 -> 2
