// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s

// A load of a window that an earlier store of the block overlaps stays after
// the store (read after write); a load of a disjoint window of the same
// tensor goes up.

// CHECK-LABEL: func.func @load_after_store
// CHECK:         scf.for
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %c = pypto.tile.load %x[%c128]
// CHECK-NEXT:      %ea = pypto.tile.exp %a
// CHECK-NEXT:      pypto.tile.store %ea, %x[%c0]
// CHECK-NEXT:      %b = pypto.tile.load %x[%c64]
// CHECK-NEXT:      "test.pureop"(%b, %c)
// CHECK-NEXT:    }
func.func @load_after_store(%x: !pypto.tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<128xf32, vec>
    %ea = pypto.tile.exp %a : !pypto.tile<128xf32, vec>
    pypto.tile.store %ea, %x[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<256xf32>
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<256xf32> -> !pypto.tile<128xf32, vec>
    %c = pypto.tile.load %x[%c128] : !pypto.tensor<256xf32> -> !pypto.tile<128xf32, vec>
    "test.pureop"(%b, %c) : (!pypto.tile<128xf32, vec>, !pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}

// -----

// Stores to overlapping windows keep their order (write after write),
// although the stage of the later ones is smaller: the stage 0 computes go
// first, their stores wait for the stage 1 store.

// CHECK-LABEL: func.func @overlapping_stores
// CHECK:         scf.for
// CHECK-NEXT:      %b = pypto.tile.neg %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %c = pypto.tile.abs %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %a = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %a, %out[%c0]
// CHECK-NEXT:      pypto.tile.store %b, %out[%c64]
// CHECK-NEXT:      pypto.tile.store %c, %out[%c128]
// CHECK-NEXT:    }
func.func @overlapping_stores(%t: !pypto.tile<128xf32, vec>, %out: !pypto.tensor<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %a, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<512xf32>
    %b = pypto.tile.neg %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %b, %out[%c64] : !pypto.tile<128xf32, vec>, !pypto.tensor<512xf32>
    %c = pypto.tile.abs %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %c, %out[%c128] : !pypto.tile<128xf32, vec>, !pypto.tensor<512xf32>
  }
  func.return
}

// -----

// Without the overlap, the stage 0 compute and store go first.

// CHECK-LABEL: func.func @disjoint_stores
// CHECK:         scf.for
// CHECK-NEXT:      %b = pypto.tile.neg %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      pypto.tile.store %b, %out[%c128]
// CHECK-NEXT:      %a = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %a, %out[%c0]
// CHECK-NEXT:    }
func.func @disjoint_stores(%t: !pypto.tile<128xf32, vec>, %out: !pypto.tensor<512xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %a, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<512xf32>
    %b = pypto.tile.neg %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %b, %out[%c128] : !pypto.tile<128xf32, vec>, !pypto.tensor<512xf32>
  }
  func.return
}

// -----

// A func.call has unknown effects: memory ops do not cross it (the load of %y
// would otherwise go to the top). Pure ops still do.

// CHECK-LABEL: func.func @call_barrier
// CHECK:         scf.for
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %ea = pypto.tile.exp %a
// CHECK-NEXT:      pypto.tile.store %ea, %out[%c0]
// CHECK-NEXT:      func.call @opaque() : () -> ()
// CHECK-NEXT:      %b = pypto.tile.load %y[%c0]
// CHECK-NEXT:      "test.pureop"(%b)
// CHECK-NEXT:    }
func.func private @opaque() -> ()

func.func @call_barrier(%x: !pypto.tensor<64xf32>, %y: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    %ea = pypto.tile.exp %a : !pypto.tile<64xf32, vec>
    pypto.tile.store %ea, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
    func.call @opaque() : () -> ()
    %b = pypto.tile.load %y[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    "test.pureop"(%b) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// An op without effect information (test.op here), even nested in an scf.if,
// is a barrier for memory ops, but not for pure ops.

// CHECK-LABEL: func.func @unknown_op_barrier
// CHECK:         scf.for
// CHECK-NEXT:      %c64 = arith.constant 64 : index
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      "test.op"() : () -> ()
// CHECK-NEXT:      %b = pypto.tile.load %x[%c64]
// CHECK-NEXT:      scf.if %cond {
// CHECK-NEXT:        "test.op"() : () -> ()
// CHECK-NEXT:      }
// CHECK-NEXT:      %c = pypto.tile.load %x[%c0]
// CHECK-NEXT:      "test.pureop"(%a, %b, %c)
// CHECK-NEXT:    }
func.func @unknown_op_barrier(%x: !pypto.tensor<128xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    "test.op"() : () -> ()
    %c64 = arith.constant 64 : index
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    scf.if %cond {
      "test.op"() : () -> ()
    }
    %c = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    "test.pureop"(%a, %b, %c) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// Cross-core push and pop keep their relative order (both directions share
// the handshake), although the pop's stage is smaller.

// CHECK-LABEL: func.func @push_before_pop
// CHECK:         scf.for
// CHECK-NEXT:      %e = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.tpush_to_aiv %e
// CHECK-NEXT:      %p = pypto.tile.tpop_from_aiv {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %q = pypto.tile.tpop_from_aiv {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      "test.pureop"(%p, %q)
// CHECK-NEXT:    }
func.func @push_before_pop(%t: !pypto.tile<16x64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %e = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<16x64xf32, vec>
    pypto.tile.tpush_to_aiv %e : !pypto.tile<16x64xf32, vec>
    %p = pypto.tile.tpop_from_aiv {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x64xf32, vec>
    %q = pypto.tile.tpop_from_aiv {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x64xf32, vec>
    "test.pureop"(%p, %q) : (!pypto.tile<16x64xf32, vec>, !pypto.tile<16x64xf32, vec>) -> ()
  }
  func.return
}

// -----

// Distinct !pypto.tensor arguments never alias: the load of %x goes above the
// store to %out. Any other tensor value (here an scf.if result) may alias any
// tensor: the load of %x stays below the store to %v.

// CHECK-LABEL: func.func @aliasing
// CHECK:         scf.for
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      pypto.tile.store %t, %out[%c0]
// CHECK-NEXT:      pypto.tile.store %t, %v[%c0]
// CHECK-NEXT:      %b = pypto.tile.load %x[%c64]
// CHECK-NEXT:      "test.pureop"(%a, %b)
// CHECK-NEXT:    }
func.func @aliasing(%x: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>, %t: !pypto.tile<64xf32, vec>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %v = scf.if %cond -> (!pypto.tensor<128xf32>) {
    scf.yield %x : !pypto.tensor<128xf32>
  } else {
    scf.yield %out : !pypto.tensor<128xf32>
  }
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    pypto.tile.store %t, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    pypto.tile.store %t, %v[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    "test.pureop"(%a, %b) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// Ops with regions carry the effects of the ops inside them: the load of %x
// stays below the scf.if that stores to %x, and goes above the one that
// stores to %out. An offset defined inside a region (the inner loop's %j) is
// unknown from outside: that store may touch any element.

// CHECK-LABEL: func.func @nested_effects
// CHECK:         scf.for
// CHECK-NEXT:      %a = pypto.tile.load %x[%c64]
// CHECK-NEXT:      scf.if %cond {
// CHECK-NEXT:        pypto.tile.store %t, %out[%c0]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.if %cond {
// CHECK-NEXT:        pypto.tile.store %t, %x[%c0]
// CHECK-NEXT:      }
// CHECK-NEXT:      %b = pypto.tile.load %x[%c0]
// CHECK-NEXT:      scf.for %j = %c0 to %c2 step %c1 {
// CHECK-NEXT:        %off = arith.muli %j, %c64 : index
// CHECK-NEXT:        pypto.tile.store %t, %y[%off]
// CHECK-NEXT:      }
// CHECK-NEXT:      %c = pypto.tile.load %y[%c64]
// CHECK-NEXT:      "test.pureop"(%a, %b, %c)
// CHECK-NEXT:    }
func.func @nested_effects(%x: !pypto.tensor<128xf32>, %y: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>, %t: !pypto.tile<64xf32, vec>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    scf.if %cond {
      pypto.tile.store %t, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    }
    %a = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    scf.if %cond {
      pypto.tile.store %t, %x[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    }
    %b = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    scf.for %j = %c0 to %c2 step %c1 {
      %off = arith.muli %j, %c64 : index
      pypto.tile.store %t, %y[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    }
    %c = pypto.tile.load %y[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    "test.pureop"(%a, %b, %c) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// An in-place kernel after lowering with stages 2: copy k loads and stores
// x[(i + k) * 128]. The offsets fold to linear forms 128*i and 128*i + 128, so
// copy 1's load is provably disjoint from copy 0's store and goes up; each
// store still follows the load of its own window.

// CHECK-LABEL: func.func @in_place
// CHECK:         scf.for %i = %c0 to %c8 step %c2 {
// CHECK-NEXT:      %off = arith.muli %i, %c128 : index
// CHECK-NEXT:      %i_1 = arith.addi %i, %c1 : index
// CHECK-NEXT:      %off_1 = arith.muli %i_1, %c128 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      pypto.tile.store %y, %x[%off]
// CHECK-NEXT:      %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %y_1, %x[%off_1]
// CHECK-NEXT:    }
func.func @in_place(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c8 step %c2 stages 1 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %y, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
    %i_1 = arith.addi %i, %c1 : index
    %off_1 = arith.muli %i_1, %c128 : index
    %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %y_1, %x[%off_1] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// -----

// The same in-place kernel on rows of a 2-D tensor (row softmax style): rows
// %row and %row + 16 are disjoint in dimension 0, whatever the columns.

// CHECK-LABEL: func.func @in_place_rows
// CHECK:         scf.for %row = %c0 to %c128 step %c32 {
// CHECK-NEXT:      %row_1 = arith.addi %row, %c16 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%row, %c0]
// CHECK-NEXT:      %t_1 = pypto.tile.load %x[%row_1, %c0]
// CHECK-NEXT:      %y = pypto.tile.exp %t
// CHECK-NEXT:      pypto.tile.store %y, %x[%row, %c0]
// CHECK-NEXT:      %y_1 = pypto.tile.exp %t_1
// CHECK-NEXT:      pypto.tile.store %y_1, %x[%row_1, %c0]
// CHECK-NEXT:    }
func.func @in_place_rows(%x: !pypto.tensor<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %row = %c0 to %c128 step %c32 stages 1 {
    %t = pypto.tile.load %x[%row, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<128x64xf32> -> !pypto.tile<16x64xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %y, %x[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<128x64xf32>
    %row_1 = arith.addi %row, %c16 : index
    %t_1 = pypto.tile.load %x[%row_1, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<128x64xf32> -> !pypto.tile<16x64xf32, vec>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<16x64xf32, vec>
    pypto.tile.store %y_1, %x[%row_1, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<128x64xf32>
  }
  func.return
}

// -----

// Offsets whose symbolic parts differ (%i and %j) cannot be compared: the load
// stays below the store.

// CHECK-LABEL: func.func @unrelated_offsets
// CHECK:         scf.for
// CHECK-NEXT:      %y = pypto.tile.exp %t
// CHECK-NEXT:      pypto.tile.store %y, %x[%i]
// CHECK-NEXT:      %u = pypto.tile.load %x[%j]
// CHECK-NEXT:      "test.pureop"(%u)
// CHECK-NEXT:    }
func.func @unrelated_offsets(%x: !pypto.tensor<1024xf32>, %t: !pypto.tile<128xf32, vec>, %j: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    %y = pypto.tile.exp %t : !pypto.tile<128xf32, vec>
    pypto.tile.store %y, %x[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
    %u = pypto.tile.load %x[%j] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.pureop"(%u) : (!pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}
