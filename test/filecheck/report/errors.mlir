// Bad cost tables, inputs and pass pipelines are `error:` lines with exit
// code 1, never a traceback.

// RUN: not pypto-report %s --costs %S/Inputs/unknown-engine.json 2>&1 | filecheck %s --check-prefix=ENGINE
// RUN: not pypto-report %s --costs %S/Inputs/negative.json 2>&1 | filecheck %s --check-prefix=NEGATIVE
// RUN: not pypto-report %s --costs %S/Inputs/not-json.json 2>&1 | filecheck %s --check-prefix=JSON
// RUN: not pypto-report %s --costs %S/Inputs/missing.json 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not pypto-report %s --passes no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not pypto-report %s --passes 'lower-pipeline-loop,canonicalize-io-order' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not pypto-report %s --passes 'lower-pipeline-loops{max-copies=many}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: printf 'import pypto.language as pl\n' > %t.py && not pypto-report %t.py 2>&1 | filecheck %s --check-prefix=PY -DFILE=%t.py
// RUN: printf '\n' > %t.mlir && pypto-report %t.mlir 2>&1 | filecheck %s --check-prefix=EMPTY
// RUN: not pypto-report %s --passes canonicalize-io-order 2>&1 | filecheck %s --check-prefix=FAILED -DFILE=%s
// RUN: not pypto-report %S/Inputs/unit-costs.json 2>&1 | filecheck %s --check-prefix=SUFFIX
// RUN: not pypto-report %S/Inputs/none.mlir 2>&1 | filecheck %s --check-prefix=NONE
// RUN: not pypto-report %s --plot %T 2>&1 | filecheck %s --check-prefix=PLOTDIR -DDIR=%T
// RUN: not pypto-report %s --plot '' 2>&1 | filecheck %s --check-prefix=PLOTEMPTY
// RUN: not pypto-report %s --plot /dev/full 2>&1 | filecheck %s --check-prefix=PLOTFULL
// RUN: not pypto-report %s --costs /dev/zero 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: python -c "print('{\"queue_depth\": ' + '9' * 5000 + '}')" > %t.digits.json
// RUN: not pypto-report %s --costs %t.digits.json 2>&1 | filecheck %s --check-prefix=DIGITS
// RUN: python -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not pypto-report %s --costs %t.deep.json 2>&1 | filecheck %s --check-prefix=DEEP
// RUN: not pypto-report %s --costs %S/Inputs/tiny-bandwidth.json 2>&1 | filecheck %s --check-prefix=BANDWIDTH
// RUN: not pypto-report %s --costs %S/Inputs/deep-queue.json 2>&1 | filecheck %s --check-prefix=QUEUE
// RUN: python -c "import json; from passes.schedule.engines import default_costs_text as d; t = json.loads(d()); t['events_per_pair'] = 2**53; print(json.dumps(t))" > %t.events.json
// RUN: not pypto-report %s --costs %t.events.json 2>&1 | filecheck %s --check-prefix=EVENTS

func.func @f(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %off = arith.muli %i, %c2 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

// ENGINE:       {{.*}}unknown-engine.json: error: engines: unknown engine 'MTE4' (known: SCALAR, MTE2, MTE1, VECTOR, CUBE, FIXPIPE, MTE3, AIC_TO_AIV, AIV_TO_AIC)
// ENGINE-NOT:   Traceback
// NEGATIVE:     {{.*}}negative.json: error: sync_latency: must be a non-negative number, got -1
// JSON:         {{.*}}not-json.json:4:1: error: invalid JSON: Expecting value
// MISSING:      {{.*}}missing.json: error: cannot read the cost table: No such file or directory
// PASS:         pypto-report: error: --passes: unknown pass 'no-such-pass' (pypto-opt --list-passes lists the passes)
// TYPO:         pypto-report: error: --passes: unknown pass 'lower-pipeline-loop'; did you mean 'lower-pipeline-loops'{{.*}}? (pypto-opt --list-passes lists the passes)
// VALUE:        pypto-report: error: --passes: pass 'lower-pipeline-loops': option 'max-copies' takes an integer, got 'many'
// PY:           [[FILE]]:1:1: error: no @pl.program class: a PyPTO program holds 'import pypto.language as pl' and @pl.program classes
// EMPTY:        no pypto.pipeline loops
// FAILED:       [[FILE]]:33:3: error: after --passes 'canonicalize-io-order': 'pypto.pipeline' op pypto.pipeline with stages 2 is not lowered yet
// FAILED-NEXT:  {{^}}  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
// SUFFIX:       pypto-report: error: cannot read {{.*}}unit-costs.json: unknown file extension '.json' (known: .mlir, .py, .pypto)
// NONE:         pypto-report: error: cannot read {{.*}}none.mlir: No such file or directory
// PLOTDIR:      {{^}}pypto-report: error: --plot: '[[DIR]]' must end in .svg, .png, .pdf (the format to write){{$}}
// PLOTEMPTY:    {{^}}pypto-report: error: --plot: '' must end in .svg, .png, .pdf (the format to write){{$}}
// PLOTFULL:     {{^}}pypto-report: error: --plot: '/dev/full' must end in .svg, .png, .pdf (the format to write){{$}}
// ZERO:         {{^}}/dev/zero: error: cannot read the cost table: larger than 67,108,864 bytes{{$}}
// DIGITS:       {{.*}}digits.json: error: invalid {{JSON}}: a number with too many digits
// DEEP:         {{.*}}deep.json: error: invalid {{JSON}}: lists or objects nested too deeply
// BANDWIDTH:    {{.*}}tiny-bandwidth.json: error: engines.MTE2.bandwidth: must be at least 2^-20, got 5e-324
// QUEUE:        {{.*}}deep-queue.json: error: queue_depth: must be at most 64, got 1000000
// EVENTS:       {{.*}}.events.json: error: events_per_pair: must be at most 64, got 9007199254740992
