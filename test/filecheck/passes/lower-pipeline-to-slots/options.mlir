// costs=FILE: the capacities of another cost table bound the slots (here 1
// KiB of vec: the 2 slots of a 512-byte tile fill it, so the 3 of the next
// loop do not fit). Without explain, nothing is printed. A cost table that
// cannot be used is an error line, never a traceback.

// RUN: xdsl-opt -p 'lower-pipeline-to-slots{costs="%S/Inputs/small-vec.json" explain=true}' %s 2>&1 >/dev/null | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-to-slots{costs="%S/Inputs/small-vec.json"}' %s 2>&1 | filecheck %s --check-prefix=QUIET
// RUN: not pypto-opt -p 'lower-pipeline-to-slots{costs="%S/Inputs/broken.json"}' %s 2>&1 | filecheck %s --check-prefix=BROKEN
// RUN: not pypto-opt -p 'lower-pipeline-to-slots{costs="%S/Inputs/missing.json"}' %s 2>&1 | filecheck %s --check-prefix=MISSING

func.func @fits(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 3 {
    %u = pypto.tile.load %x[%c0] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%u) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}
// CHECK:      lower-pipeline-to-slots: @fits: pypto.pipeline over %i, stages 2: 1 load(s) rotate through 2 slots each: pypto.tile.load %t
// CHECK-NEXT: lower-pipeline-to-slots: @fits: pypto.pipeline over %i_1, stages 3: declined by gate capacity: the slots of the loop's vec tiles so far need more than the 0 bytes of vec left of its 1024

// QUIET-NOT:  lower-pipeline-to-slots:
// QUIET:      pypto.alloc "pipe_t" slots 2 : !pypto.alloc<vec>
// QUIET:      scf.for
// QUIET:      pypto.pipeline
// QUIET-NOT:  lower-pipeline-to-slots:

// BROKEN:     error: lower-pipeline-to-slots: {{.*}}broken.json:2:1: invalid JSON: Expecting ',' delimiter
// BROKEN-NOT: Traceback
// MISSING:    error: lower-pipeline-to-slots: {{.*}}missing.json: cannot read the cost table: No such file or directory
