// A cross-core loop before and after skew-cross-core-pipeline: its push and
// pop split their tile between the vector cores (split = 1). The bundled
// table runs two vector cores beside the cube core (vector_cores 2), so a
// split push or pop moves half its 16 x 64 f32 tile (2048 of 4096 bytes):
// 128 + 2048 / 64 = 160 cycles on its channel; with one vector core
// (vector_cores 1) the whole tile, 128 + 4096 / 64 = 192. The skew (depth
// 2) runs the producer two iterations ahead: the time per iteration drops
// from 416 to 368 (one vector core: 480 to 432). The trace has both cores'
// lanes. A table asking for three vector cores is refused.

// RUN: pypto-report %s --passes skew-cross-core-pipeline,lower-pipeline-loops,canonicalize-io-order --trace %t.trace | filecheck %s --check-prefix=TWO
// RUN: filecheck %s --check-prefix=LANES < %t.trace
// RUN: pypto-report --print-costs | sed 's/"vector_cores": {"value": 2/"vector_cores": {"value": 1/' > %t.one.json
// RUN: pypto-report %s --passes skew-cross-core-pipeline,lower-pipeline-loops,canonicalize-io-order --costs %t.one.json | filecheck %s --check-prefix=ONE
// RUN: pypto-report --print-costs | sed 's/"vector_cores": {"value": 2/"vector_cores": {"value": 3/' > %t.three.json
// RUN: not pypto-report %s --costs %t.three.json 2>&1 | filecheck %s --check-prefix=THREE

func.func @cross_core(%q: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %row = arith.muli %i, %c16 : index
    %qa = pypto.tile.load %q[%row, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x64xf32, vec>
    %rs = pypto.tile.add %qa, %qa : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %rs {split = 1 : i64} : !pypto.tile<16x64xf32, vec>
    %e = pypto.tile.tpop_from_aiv {split = 1 : i64} : !pypto.tile<16x64xf32, vec>
    %oi = pypto.tile.add %e, %e : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %oi, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<64x64xf32>
  }
  func.return
}

// TWO:      @cross_core: pypto.pipeline at {{.*}}cross-core.mlir:23:3, stages 2
// TWO-NEXT:   cycles per original iteration      before       after
// TWO-NEXT:   busy AIC_TO_AIV                     160.0       160.0
// TWO-NEXT:   busy AIV_TO_AIC                     160.0       160.0
// TWO:        modelled time                       416.0       368.0
// TWO:        speed-up                                        1.13x

// LANES-DAG: "AIC SCALAR"
// LANES-DAG: "AIV MTE2"
// LANES-DAG: "AIC_TO_AIV"
// LANES-DAG: "AIV_TO_AIC"

// ONE:        busy AIC_TO_AIV                     192.0       192.0
// ONE-NEXT:   busy AIV_TO_AIC                     192.0       192.0
// ONE:        modelled time                       480.0       432.0

// THREE: error: vector_cores: must be 1 or 2, got 3
