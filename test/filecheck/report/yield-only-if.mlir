// An `scf.if` that only yields a tile holds no unit: the dependence on it
// needs no flag (an IndexError once, exit 70, in the report and in
// auto-stages). Found by the mutation campaign.

// RUN: pypto-report %s --passes lower-pipeline-loops,canonicalize-io-order | filecheck %s
// RUN: pypto-run %s --passes 'lower-pipeline-loops{auto-stages=true},canonicalize-io-order' 2>/dev/null | filecheck %s --check-prefix=SAME

func.func @f(%x: !pypto.tensor<64xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    %u = pypto.tile.adds %t, %one : !pypto.tile<64xf32, vec>, f32
    %s = scf.if %c -> (!pypto.tile<64xf32, vec>) {
      scf.yield %u : !pypto.tile<64xf32, vec>
    } else {
      scf.yield %u : !pypto.tile<64xf32, vec>
    }
  }
  func.return
}

// CHECK:      modelled time {{ +}}109.0 {{ +}}80.5
// SAME:       all 1 outputs bit-identical
