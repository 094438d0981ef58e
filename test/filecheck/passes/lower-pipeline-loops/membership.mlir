// Every tile-producing op of copy k gets (group, k) appended to its
// `pypto.pipeline_membership`. Groups count from 0 in each func.func, in the
// order the regions are built: inner before outer, main loop before remainder.

// RUN: xdsl-opt -p lower-pipeline-loops --split-input-file %s | filecheck %s

// Only ops producing a tile are tagged: not stores, not tile.read, not scalars.
// An existing membership is extended.
func.func @what_is_tagged(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %u = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<7:1>} : !pypto.tile<128xf32, vec>
    %e = pypto.tile.read %u[%c0] : !pypto.tile<128xf32, vec>
    %v = pypto.tile.adds %u, %e : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %v, %x[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK-LABEL: func.func @what_is_tagged
// CHECK:      pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT: pypto.tile.exp {{.*}} {pypto.pipeline_membership = #pypto.membership<7:1, 0:0>}
// CHECK-NEXT: pypto.tile.read
// CHECK-NOT:  membership
// CHECK-SAME: : !pypto.tile<128xf32, vec>
// CHECK-NEXT: pypto.tile.adds {{.*}} {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT: pypto.tile.store
// CHECK-NOT:  membership
// CHECK-SAME: : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
// CHECK-NEXT: arith.addi
// CHECK-NEXT: pypto.tile.load {{.*}} {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT: pypto.tile.exp {{.*}} {pypto.pipeline_membership = #pypto.membership<7:1, 0:1>}

// -----

// Ops with regions are not tagged even when they return one tile: they make
// no buffer of their own, the ops inside them are tagged.
func.func @regions_not_tagged(%x: !pypto.tensor<1024xf32>, %init: !pypto.tile<128xf32, vec>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %s = scf.if %c -> (!pypto.tile<128xf32, vec>) {
      %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
      scf.yield %t : !pypto.tile<128xf32, vec>
    } else {
      scf.yield %init : !pypto.tile<128xf32, vec>
    }
    %r = pypto.pipeline %j = %c0 to %c2 step %c1 stages 1 iter_args(%a = %s) -> (!pypto.tile<128xf32, vec>) {
      %e = pypto.tile.exp %a : !pypto.tile<128xf32, vec>
      pypto.yield %e : !pypto.tile<128xf32, vec>
    }
    "test.op"(%r) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @regions_not_tagged
// CHECK:      scf.if %c -> (!pypto.tile<128xf32, vec>) {
// CHECK-NEXT:   pypto.tile.load {{.*}}membership<0:0>}
// CHECK:      } else {
// CHECK:      }
// CHECK-NOT:  membership
// CHECK-NEXT: pypto.pipeline {{.*}} stages 1 iter_args
// CHECK-NEXT:   pypto.tile.exp {{.*}}membership<0:0>}
// CHECK-NEXT:   pypto.yield
// CHECK-NEXT: }
// CHECK-NOT:  membership
// CHECK-NEXT: "test.op"

// -----

// Each func.func counts from 0; two loops in one function take 0 and 1 (main)
// then 2 (remainder) and 3.
func.func @first(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  pypto.pipeline %i = %c0 to %c3 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

func.func @second(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// CHECK-LABEL: func.func @first
// CHECK:       pypto.tile.load {{.*}}membership<0:0>}
// CHECK:       pypto.tile.load {{.*}}membership<0:1>}
// CHECK:       pypto.tile.load {{.*}}membership<1:0>}
// CHECK:       pypto.tile.load {{.*}}membership<2:0>}
// CHECK:       pypto.tile.load {{.*}}membership<2:1>}
// CHECK-LABEL: func.func @second
// CHECK:       pypto.tile.load {{.*}}membership<0:0>}
// CHECK:       pypto.tile.load {{.*}}membership<0:1>}

// -----

// Nested pipelines: the inner loop (T = 3, F = 2: main group 0, remainder
// group 1) is lowered first, then the outer one (group 2) replicates it and
// appends its own pair after the inner one, also inside scf.if / scf.for.
func.func @nested(%x: !pypto.tensor<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 2 {
    pypto.pipeline %j = %c0 to %c3 step %c1 stages 2 {
      %t = pypto.tile.load %x[%i, %j] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x16xf32, vec>
      "test.op"(%t) : (!pypto.tile<16x16xf32, vec>) -> ()
    }
    %cond = arith.cmpi eq, %i, %c0 : index
    scf.if %cond {
      %u = pypto.tile.load %x[%c0, %i] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x16xf32, vec>
      "test.op"(%u) : (!pypto.tile<16x16xf32, vec>) -> ()
    }
    scf.for %k = %c0 to %c3 step %c1 {
      %v = pypto.tile.load %x[%k, %i] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x16xf32, vec>
      "test.op"(%v) : (!pypto.tile<16x16xf32, vec>) -> ()
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nested
// CHECK:        pypto.pipeline [[I:%.*]] = %c0 to %c4 step {{%.*}} stages 1 {
// CHECK:          pypto.pipeline {{%.*}} = %c0 to {{%.*}} step {{%.*}} stages 1 {
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<0:0, 2:0>}
// CHECK:            pypto.tile.load {{.*}}membership<0:1, 2:0>}
// CHECK:          }
// CHECK-NEXT:     pypto.tile.load {{.*}}membership<1:0, 2:0>}
// CHECK:          scf.if
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<2:0>}
// CHECK:          scf.for
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<2:0>}
// CHECK:          arith.addi [[I]], %c1
// CHECK:          pypto.pipeline {{%.*}} = %c0 to {{%.*}} step {{%.*}} stages 1 {
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<0:0, 2:1>}
// CHECK:            pypto.tile.load {{.*}}membership<0:1, 2:1>}
// CHECK:          }
// CHECK-NEXT:     pypto.tile.load {{.*}}membership<1:0, 2:1>}
// CHECK:          scf.if
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<2:1>}
// CHECK:          scf.for
// CHECK-NEXT:       pypto.tile.load {{.*}}membership<2:1>}
// CHECK-NOT:      membership

// -----

// An inner loop with dynamic bounds takes its groups first: main 0, then the
// cascade branches 1 (two copies) and 2 (one copy); the outer loop takes 3.
func.func @nested_dynamic(%x: !pypto.tensor<64x64xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    pypto.pipeline %j = %c0 to %n step %c1 stages 3 {
      %t = pypto.tile.load %x[%i, %j] : !pypto.tensor<64x64xf32> -> !pypto.tile<16x16xf32, vec>
      "test.op"(%t) : (!pypto.tile<16x16xf32, vec>) -> ()
    }
  }
  func.return
}

// CHECK-LABEL: func.func @nested_dynamic
// CHECK-COUNT-3: membership<0:{{[0-2]}}, 3:0>}
// CHECK:         scf.if
// CHECK-NEXT:      membership<2:0, 3:0>}
// CHECK:         scf.if
// CHECK-NEXT:      membership<1:0, 3:0>}
// CHECK:           membership<1:1, 3:0>}
// CHECK-COUNT-3: membership<0:{{[0-2]}}, 3:1>}
// CHECK:         scf.if
// CHECK-NEXT:      membership<2:0, 3:1>}
// CHECK:         scf.if
// CHECK-NEXT:      membership<1:0, 3:1>}
// CHECK:           membership<1:1, 3:1>}

// -----

// The cube accumulator: matmul and matmul_acc into `acc` are not tagged,
// data movement into `acc` (extract, move) is.
func.func @cube_accumulator(%a: !pypto.tensor<16x128xbf16>, %b: !pypto.tensor<128x64xbf16>, %m: !pypto.tile<32x64xf32, mat>, %init: !pypto.tile<16x64xf32, acc>) -> !pypto.tile<16x64xf32, acc> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r = pypto.pipeline %k = %c0 to %c128 step %c64 stages 2 iter_args(%partial = %init) -> (!pypto.tile<16x64xf32, acc>) {
    %l = pypto.tile.load %a[%c0, %k] : !pypto.tensor<16x128xbf16> -> !pypto.tile<16x64xbf16, left>
    %r = pypto.tile.load %b[%k, %c0] : !pypto.tensor<128x64xbf16> -> !pypto.tile<64x64xbf16, right>
    %p = pypto.tile.matmul %l, %r : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x64xbf16, right> -> !pypto.tile<16x64xf32, acc>
    %q = pypto.tile.matmul_acc %partial, %l, %r : !pypto.tile<16x64xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x64xbf16, right>
    %e = pypto.tile.extract %m[%c0, %c0] : !pypto.tile<32x64xf32, mat> -> !pypto.tile<16x64xf32, acc>
    %v = pypto.tile.move %e : !pypto.tile<16x64xf32, acc> -> !pypto.tile<16x64xf32, acc>
    "test.op"(%p, %v) : (!pypto.tile<16x64xf32, acc>, !pypto.tile<16x64xf32, acc>) -> ()
    pypto.yield %q : !pypto.tile<16x64xf32, acc>
  }
  func.return %r : !pypto.tile<16x64xf32, acc>
}

// CHECK-LABEL: func.func @cube_accumulator
// CHECK:      pypto.tile.load {{.*}}membership<0:0>}
// CHECK-NEXT: pypto.tile.load {{.*}}membership<0:0>}
// CHECK-NEXT: pypto.tile.matmul
// CHECK-NOT:  membership
// CHECK-SAME: -> !pypto.tile<16x64xf32, acc>
// CHECK-NEXT: pypto.tile.matmul_acc
// CHECK-NOT:  membership
// CHECK-SAME: !pypto.tile<64x64xbf16, right>
// CHECK-NEXT: pypto.tile.extract {{.*}}membership<0:0>}
// CHECK-NEXT: pypto.tile.move {{.*}}membership<0:0>}
// CHECK:      pypto.tile.matmul
// CHECK-NOT:  membership
// CHECK-SAME: -> !pypto.tile<16x64xf32, acc>
// CHECK-NEXT: pypto.tile.matmul_acc
// CHECK-NOT:  membership
// CHECK-SAME: !pypto.tile<64x64xbf16, right>
// CHECK-NEXT: pypto.tile.extract {{.*}}membership<0:1>}
// CHECK-NEXT: pypto.tile.move {{.*}}membership<0:1>}

// -----

// With `double_buffer_acc = true` the cube accumulator is tagged too.
func.func @double_buffer_acc(%a: !pypto.tensor<16x128xbf16>, %b: !pypto.tensor<128x64xbf16>, %init: !pypto.tile<16x64xf32, acc>) -> !pypto.tile<16x64xf32, acc> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %r = pypto.pipeline %k = %c0 to %c128 step %c64 stages 2 double_buffer_acc = true iter_args(%partial = %init) -> (!pypto.tile<16x64xf32, acc>) {
    %l = pypto.tile.load %a[%c0, %k] : !pypto.tensor<16x128xbf16> -> !pypto.tile<16x64xbf16, left>
    %r = pypto.tile.load %b[%k, %c0] : !pypto.tensor<128x64xbf16> -> !pypto.tile<64x64xbf16, right>
    %p = pypto.tile.matmul %l, %r : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x64xbf16, right> -> !pypto.tile<16x64xf32, acc>
    %q = pypto.tile.matmul_acc %partial, %l, %r : !pypto.tile<16x64xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x64xbf16, right>
    "test.op"(%p) : (!pypto.tile<16x64xf32, acc>) -> ()
    pypto.yield %q : !pypto.tile<16x64xf32, acc>
  }
  func.return %r : !pypto.tile<16x64xf32, acc>
}

// CHECK-LABEL: func.func @double_buffer_acc
// CHECK:      pypto.pipeline {{.*}} stages 1 double_buffer_acc = true iter_args
// CHECK:      pypto.tile.matmul {{.*}}membership<0:0>}
// CHECK-NEXT: pypto.tile.matmul_acc {{.*}}membership<0:0>}
// CHECK:      pypto.tile.matmul {{.*}}membership<0:1>}
// CHECK-NEXT: pypto.tile.matmul_acc {{.*}}membership<0:1>}

// -----

// A pipeline outside any function counts in its module.
builtin.module {
  %x = "test.op"() : () -> !pypto.tensor<1024xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.op"(%t) : (!pypto.tile<128xf32, vec>) -> ()
  }
}

// CHECK-LABEL: builtin.module
// CHECK:       pypto.tile.load {{.*}}membership<0:0>}
// CHECK:       pypto.tile.load {{.*}}membership<0:1>}
