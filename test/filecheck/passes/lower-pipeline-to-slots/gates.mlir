// One case per gate: a declined loop stays a pypto.pipeline, whole (no load
// of it bound), for lower-pipeline-loops; explain=true names, on stderr, the
// gate and the op that tripped it.

// RUN: xdsl-opt -p 'lower-pipeline-to-slots{explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-to-slots' --split-input-file %s | filecheck %s --check-prefix=IR

// Each IR check: the loop is left as it was (no allocation declared, no slot).

func.func @stages_beyond_sixteen(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 17 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @stages_beyond_sixteen(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @stages_beyond_sixteen: pypto.pipeline over %i, stages 17: declined by gate stages: stages 17 is outside [2, 16], the slot counts of a region (at pypto.pipeline over %i)

// -----

func.func @step(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c2 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @step(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @step: pypto.pipeline over %i, stages 2: declined by gate step: the step is not the constant 1 (at pypto.pipeline over %i)

// -----

func.func @start_not_a_multiple(%x: !pypto.tensor<1024xf32>) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c1 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @start_not_a_multiple(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @start_not_a_multiple: pypto.pipeline over %i, stages 2: declined by gate start: the start is not a constant, non-negative multiple of 2, so iv % 2 is not the iteration's slot (at pypto.pipeline over %i)

// -----

func.func @start_negative(%x: !pypto.tensor<1024xf32>) {
  %cm4 = arith.constant -4 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %cm4 to %c64 step %c1 stages 4 {
    %t = pypto.tile.load %x[%c1] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @start_negative(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @start_negative: pypto.pipeline over %i, stages 4: declined by gate start: the start is not a constant, non-negative multiple of 4

// -----

func.func @start_dynamic(%x: !pypto.tensor<1024xf32>, %lb: index) {
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %lb to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c1] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @start_dynamic(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @start_dynamic: pypto.pipeline over %i, stages 2: declined by gate start

// -----

func.func @no_load(%t: !pypto.tile<64xf32, vec>, %x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    scf.for %k = %c0 to %c64 step %c1 {
      %nested = pypto.tile.load %x[%k] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
      "test.op"(%nested) : (!pypto.tile<64xf32, vec>) -> ()
    }
  }
  func.return
}
// IR-LABEL: func.func @no_load(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @no_load: pypto.pipeline over %i, stages 2: declined by gate no-load: no load of its body to bind (at pypto.pipeline over %i)

// -----

// Declined: so is every pipeline in it (its copies would each take a slot).
func.func @nested(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %o = %c0 to %c64 step %c2 stages 2 {
    pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
      %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
      "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
    }
  }
  func.return
}
// IR-LABEL: func.func @nested(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK:      @nested: pypto.pipeline over %o, stages 2: declined by gate step
// CHECK-NEXT: lower-pipeline-to-slots: @nested: pypto.pipeline over %i, stages 2: declined by gate nested: a pipeline around it is declined: its copies would each take a slot (at pypto.pipeline over %o)

// -----

func.func @space(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, left>
    "test.op"(%t) : (!pypto.tile<64xf32, left>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @space(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @space: pypto.pipeline over %i, stages 2: declined by gate space: its tile is in left; slots are in vec, mat or acc (at pypto.tile.load %t)

// -----

// One load that cannot take a slot declines the whole loop: the other load
// is not bound either (else the loop would be neither rotated nor replicated).
func.func @yielded(%x: !pypto.tensor<1024xf32>, %seed: !pypto.tile<64xf32, vec>) -> !pypto.tile<64xf32, vec> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %r = pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 iter_args(%a = %seed) -> (!pypto.tile<64xf32, vec>) {
    %fine = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%fine) : (!pypto.tile<64xf32, vec>) -> ()
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    pypto.yield %t : !pypto.tile<64xf32, vec>
  }
  func.return %r : !pypto.tile<64xf32, vec>
}
// IR-LABEL: func.func @yielded(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @yielded: pypto.pipeline over %i, stages 2: declined by gate carried: its tile is carried by 'pypto.yield' (a loop-carried or yielded value would share its slot) (at pypto.tile.load %t)

// -----

func.func @into_a_nested_loop(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %r = scf.for %k = %c0 to %c64 step %c1 iter_args(%a = %t) -> (!pypto.tile<64xf32, vec>) {
      %e = pypto.tile.exp %a : !pypto.tile<64xf32, vec>
      scf.yield %e : !pypto.tile<64xf32, vec>
    }
    "test.op"(%r) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @into_a_nested_loop(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @into_a_nested_loop: pypto.pipeline over %i, stages 2: declined by gate carried: its tile is carried by 'scf.for'

// -----

func.func @out_of_an_if(%x: !pypto.tensor<1024xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %r = scf.if %c -> (!pypto.tile<64xf32, vec>) {
      scf.yield %t : !pypto.tile<64xf32, vec>
    } else {
      %e = pypto.tile.exp %t : !pypto.tile<64xf32, vec>
      scf.yield %e : !pypto.tile<64xf32, vec>
    }
    "test.op"(%r) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @out_of_an_if(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @out_of_an_if: pypto.pipeline over %i, stages 2: declined by gate carried: its tile is carried by 'scf.yield'

// -----

func.func @matmul_acc_in_place(%x: !pypto.tensor<16x16xf32>, %l: !pypto.tile<16x16xbf16, left>, %r: !pypto.tile<16x16xbf16, right>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<16x16xf32> -> !pypto.tile<16x16xf32, acc>
    %m = pypto.tile.matmul_acc %t, %l, %r : !pypto.tile<16x16xf32, acc>, !pypto.tile<16x16xbf16, left>, !pypto.tile<16x16xbf16, right>
    "test.op"(%m) : (!pypto.tile<16x16xf32, acc>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @matmul_acc_in_place(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @matmul_acc_in_place: pypto.pipeline over %i, stages 2: declined by gate in-place: 'pypto.tile.matmul_acc' updates its tile in place (its result would be the slot's buffer) (at pypto.tile.load %t)

// -----

func.func @written_in_place(%x: !pypto.tensor<1024xf32>, %v: f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %w = pypto.tile.write %v, %t[%c0] : !pypto.tile<64xf32, vec>
    "test.op"(%w) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @written_in_place(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @written_in_place: pypto.pipeline over %i, stages 2: declined by gate in-place: 'pypto.tile.write' updates its tile in place

// -----

// 2 slots of 128 KiB overflow the bundled vec capacity (192 KiB).
func.func @capacity(%x: !pypto.tensor<32768xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<32768xf32> -> !pypto.tile<32768xf32, vec>
    "test.op"(%t) : (!pypto.tile<32768xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @capacity(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: lower-pipeline-to-slots: @capacity: pypto.pipeline over %i, stages 2: declined by gate capacity: the slots of the loop's vec tiles so far need more than the 196608 bytes of vec left of its 196608 (the cost table's capacity, less the slots already pinned) (at pypto.tile.load %t)

// -----

// The author's allocations count: 2 x 64 KiB pinned leave 64 KiB, less than
// 2 slots of 48 KiB.
func.func @capacity_with_the_authors(%x: !pypto.tensor<16384xf32>, %y: !pypto.tensor<12288xf32>) {
  %mine = pypto.alloc "mine" slots 2 : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %l = pypto.tile.load %x[%c0] : !pypto.tensor<16384xf32> -> !pypto.tile<16384xf32, vec>
    %m = pypto.bind %l to %mine[%c0] : !pypto.tile<16384xf32, vec>
    "test.op"(%m) : (!pypto.tile<16384xf32, vec>) -> ()
  }
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %t = pypto.tile.load %y[%c0] : !pypto.tensor<12288xf32> -> !pypto.tile<12288xf32, vec>
    "test.op"(%t) : (!pypto.tile<12288xf32, vec>) -> ()
  }
  func.return
}
// IR-LABEL: func.func @capacity_with_the_authors(
// IR-NOT:     {{pipe_|remsi}}
// IR:         pypto.pipeline
// CHECK: @capacity_with_the_authors: pypto.pipeline over %i_1, stages 2: declined by gate capacity: the slots of the loop's vec tiles so far need more than the 65536 bytes of vec left of its 196608
