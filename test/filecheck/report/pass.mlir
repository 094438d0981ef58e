// The `pipeline-report` pass prints the report on stderr and changes
// nothing: its output is xdsl-opt's output without it.

// RUN: xdsl-opt %s -p 'pipeline-report{passes=lower-pipeline-loops,canonicalize-io-order suggest-stages=true}' 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: xdsl-opt %s -p pipeline-report 2>/dev/null > %t.report && xdsl-opt %s > %t.plain && diff %t.report %t.plain
// RUN: xdsl-opt %s -p pipeline-report 2>&1 >/dev/null | filecheck %s --check-prefix=NOW
// RUN: not pypto-opt %s -p 'pipeline-report{costs="%S/Inputs/negative.json"}' 2>&1 | filecheck %s --check-prefix=COSTS -DFILE=%s

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

// xdsl-opt's parser gives ops no file locations: the pipeline is named by its
// induction variable and its position among the module's pipelines.
// REPORT:      @add_one: pypto.pipeline %i (#1), stages 4
// REPORT-NEXT:   cycles per original iteration  before   after
// REPORT:        modelled time                   114.0    72.0
// REPORT:      stages advisor: @add_one: pypto.pipeline %i (#1), stages 4
// REPORT:        suggestion: stages 2

// NOW:         @add_one: pypto.pipeline %i (#1), stages 4
// NOW-NEXT:      cycles per iteration          now
// NOW:           modelled time               114.0

// COSTS:       [[FILE]]: error: pipeline-report: {{.*}}negative.json: sync_latency: must be a non-negative number, got -1
