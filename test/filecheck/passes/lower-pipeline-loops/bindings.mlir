// A tile bound to a declared allocation cannot be in a body the pass
// replicates (all copies would hold their tile in it): a diagnostic on the
// binding, before anything is rewritten. Bindings in loops that are not
// replicated (stages 1, scf.for) are left alone.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file --verify-diagnostics %s | filecheck %s

func.func @bound_in_a_replicated_body(%x: !pypto.tensor<256xf32>) {
  %buf = pypto.alloc "buf" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    %l = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %t = pypto.bind %l to %buf : !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}
// CHECK:      the tile bound to allocation "buf" is in the body of a pypto.pipeline with stages 2
// CHECK:      %t = "pypto.bind"(%l, %buf) : (!pypto.tile<64xf32, vec>, !pypto.alloc<vec>) -> !pypto.tile<64xf32, vec>
// CHECK-NEXT: ^^^^^^^^^^^^^^^^^
// CHECK-NEXT: | the tile bound to allocation "buf" is in the body of a pypto.pipeline with stages 2, whose copies would all hold their tile in it: bind tiles in loops that are not replicated (lower-pipeline-to-slots rotates a loop's loads through slots instead)

// -----

// Nested in a loop that is not replicated, inside one that is.
func.func @bound_deeper(%x: !pypto.tensor<256xf32>) {
  %buf = pypto.alloc "buf" slots 2 : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 3 {
    scf.for %k = %c0 to %c4 step %c1 {
      %l = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
      %t = pypto.bind %l to %buf[%c1] : !pypto.tile<64xf32, vec>
      "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
    }
  }
  func.return
}
// CHECK: | the tile bound to allocation "buf" is in the body of a pypto.pipeline with stages 3, whose copies

// -----

func.func @bound_in_loops_that_stay(%x: !pypto.tensor<256xf32>) {
  %buf = pypto.alloc "buf" slots 2 : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    scf.for %k = %c0 to %c4 step %c1 {
      %s = arith.remsi %k, %c2 : index
      %l = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
      %t = pypto.bind %l to %buf[%s] : !pypto.tile<64xf32, vec>
      "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
    }
  }
  func.return
}
// CHECK-LABEL: func.func @bound_in_loops_that_stay(
// CHECK:         pypto.pipeline {{.*}} stages 1 {
// CHECK:           %{{\w+}} = pypto.bind %{{\w+}} to %{{\w+}}[%{{\w+}}] : !pypto.tile<64xf32, vec>
