// Run-time problems are `error:` lines at the op's location, naming the op,
// with exit code 1 and no traceback: out-of-bounds windows, non-positive steps, empty channels.

// RUN: pypto-run %s --entry copy --index n=8 --index step=1 | filecheck %s --check-prefix=OK
// RUN: not pypto-run %s --entry copy --index n=9 --index step=1 2>&1 | filecheck %s --check-prefix=LOAD -DFILE=%s
// RUN: not pypto-run %s --entry @copy --index n=2 --index step=0 2>&1 | filecheck %s --check-prefix=STEP -DFILE=%s
// RUN: not pypto-run %s --entry pop 2>&1 | filecheck %s --check-prefix=POP -DFILE=%s

func.func @copy(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>, %n: index, %step: index) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %n step %step stages 2 {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %out[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<64xf32>
  }
  func.return
}

func.func @pop() {
  %t = pypto.tile.tpop_from_aic : !pypto.tile<8xf32, vec>
  func.return
}

// OK:      @copy: seed 0
// OK-NEXT:   %x    unchanged  64xf32
// OK-NEXT:   %out  written    64xf32

// LOAD-NOT:  Traceback
// LOAD:      [[FILE]]:14:5: error: pypto.tile.load: window [64:72] is out of bounds of !pypto.tensor<64xf32>
// LOAD-NEXT: {{^}}    %t = pypto.tile.load %x[%off]
// LOAD-NEXT: {{^}}    ^^
// LOAD-NOT:  Traceback

// STEP:      [[FILE]]:12:3: error: pypto.pipeline: the step must be positive at run time, got 0
// STEP-NEXT: {{^}}  pypto.pipeline %i = %c0 to %n step %step stages 2 {

// POP:       [[FILE]]:21:3: error: pypto.tile.tpop_from_aic: the aic_to_aiv channel is empty
