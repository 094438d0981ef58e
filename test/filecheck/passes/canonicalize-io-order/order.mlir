// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s

// Without memberships (a user's stages 1 loop): scalars, loads, computes,
// stores, each group in its original order.

// CHECK-LABEL: func.func @untagged
// CHECK:         scf.for %i = %c0 to %c2 step %c1 {
// CHECK-NEXT:      %off0 = arith.muli %i, %c128 : index
// CHECK-NEXT:      %off1 = arith.addi %off0, %c64 : index
// CHECK-NEXT:      %a = pypto.tile.load %x[%off0]
// CHECK-NEXT:      %b = pypto.tile.load %x[%off1]
// CHECK-NEXT:      %ea = pypto.tile.exp %a
// CHECK-NEXT:      %eb = pypto.tile.exp %b
// CHECK-NEXT:      pypto.tile.store %ea, %out[%off0]
// CHECK-NEXT:      pypto.tile.store %eb, %out[%off1]
// CHECK-NEXT:    }
func.func @untagged(%x: !pypto.tensor<256xf32>, %out: !pypto.tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 1 {
    %off0 = arith.muli %i, %c128 : index
    %a = pypto.tile.load %x[%off0] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %ea = pypto.tile.exp %a : !pypto.tile<64xf32, vec>
    pypto.tile.store %ea, %out[%off0] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
    %off1 = arith.addi %off0, %c64 : index
    %b = pypto.tile.load %x[%off1] : !pypto.tensor<256xf32> -> !pypto.tile<64xf32, vec>
    %eb = pypto.tile.exp %b : !pypto.tile<64xf32, vec>
    pypto.tile.store %eb, %out[%off1] : !pypto.tile<64xf32, vec>, !pypto.tensor<256xf32>
  }
  func.return
}

// -----

// A lowered stages 2 body (two copies, tagged 0:0 and 0:1, each with its own
// address arithmetic) becomes scalars, load load, compute_s0 store_s0,
// compute_s1 store_s1. The stores are untagged: they take the stage of the
// tile they store. Memberships survive.

// CHECK-LABEL: func.func @stage_two
// CHECK:         scf.for %i = %c0 to %c16 step %c2 {
// CHECK-NEXT:      %off = arith.muli %i, %c128 : index
// CHECK-NEXT:      %i_1 = arith.addi %i, %c1 : index
// CHECK-NEXT:      %off_1 = arith.muli %i_1, %c128 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      %y = pypto.tile.adds %t, %one {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      pypto.tile.store %y, %out[%off]
// CHECK-NEXT:      %y_1 = pypto.tile.adds %t_1, %one {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %y_1, %out[%off_1]
// CHECK-NEXT:    }
func.func @stage_two(%x: !pypto.tensor<2048xf32>, %out: !pypto.tensor<2048xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c16 step %c2 stages 1 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<2048xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<2048xf32>
    %i_1 = arith.addi %i, %c1 : index
    %off_1 = arith.muli %i_1, %c128 : index
    %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<2048xf32> -> !pypto.tile<128xf32, vec>
    %y_1 = pypto.tile.adds %t_1, %one {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y_1, %out[%off_1] : !pypto.tile<128xf32, vec>, !pypto.tensor<2048xf32>
  }
  func.return
}

// -----

// Stages compare as integers: stage 2 before stage 10 (PyPTO compares the
// packed strings, which puts "10" before "2").

// CHECK-LABEL: func.func @stage_ten
// CHECK:         scf.for
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %b = pypto.tile.load %x[%c64]
// CHECK-NEXT:      %eb = pypto.tile.exp %b {pypto.pipeline_membership = #pypto.membership<0:2>}
// CHECK-NEXT:      pypto.tile.store %eb, %out[%c64]
// CHECK-NEXT:      %ea = pypto.tile.exp %a {pypto.pipeline_membership = #pypto.membership<0:10>}
// CHECK-NEXT:      pypto.tile.store %ea, %out[%c0]
// CHECK-NEXT:    }
func.func @stage_ten(%x: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    %ea = pypto.tile.exp %a {pypto.pipeline_membership = #pypto.membership<0:10>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %ea, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
    %b = pypto.tile.load %x[%c64] : !pypto.tensor<128xf32> -> !pypto.tile<64xf32, vec>
    %eb = pypto.tile.exp %b {pypto.pipeline_membership = #pypto.membership<0:2>} : !pypto.tile<64xf32, vec>
    pypto.tile.store %eb, %out[%c64] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  }
  func.return
}

// -----

// Memberships compare pair by pair, innermost first, as integers; an untagged
// compute (empty stage) goes first. Equal keys keep their original order.

// CHECK-LABEL: func.func @membership_tuples
// CHECK:         scf.for
// CHECK-NEXT:      %u = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
// CHECK-NEXT:      %p = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:1>}
// CHECK-NEXT:      %q = pypto.tile.abs %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:1>}
// CHECK-NEXT:      %r = pypto.tile.relu %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:2>}
// CHECK-NEXT:      %s = pypto.tile.sqrt %t {pypto.pipeline_membership = #pypto.membership<1:1, 0:0>}
// CHECK-NEXT:      "test.pureop"(%p, %q, %r, %s, %u)
// CHECK-NEXT:    }
func.func @membership_tuples(%t: !pypto.tile<64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %c1 step %c1 stages 1 {
    %s = pypto.tile.sqrt %t {pypto.pipeline_membership = #pypto.membership<1:1, 0:0>} : !pypto.tile<64xf32, vec>
    %r = pypto.tile.relu %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:2>} : !pypto.tile<64xf32, vec>
    %p = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:1>} : !pypto.tile<64xf32, vec>
    %q = pypto.tile.abs %t {pypto.pipeline_membership = #pypto.membership<1:0, 0:1>} : !pypto.tile<64xf32, vec>
    %u = pypto.tile.neg %t : !pypto.tile<64xf32, vec>
    "test.pureop"(%p, %q, %r, %s, %u) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// -----

// The terminator stays last; loop-carried values go through scf.yield.

// CHECK-LABEL: func.func @terminator_last
// CHECK:         %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> (!pypto.tile<64xf32, vec>) {
// CHECK-NEXT:      %t = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %u = pypto.tile.load %x[%c0]
// CHECK-NEXT:      %next = pypto.tile.add %acc, %t
// CHECK-NEXT:      pypto.tile.store %next, %out[%c0]
// CHECK-NEXT:      scf.yield %next : !pypto.tile<64xf32, vec>
// CHECK-NEXT:    }
// CHECK-NEXT:    "test.pureop"(%r)
func.func @terminator_last(%x: !pypto.tensor<64xf32>, %out: !pypto.tensor<64xf32>, %init: !pypto.tile<64xf32, vec>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 iter_args(%acc = %init) -> (!pypto.tile<64xf32, vec>) {
    %t = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    %next = pypto.tile.add %acc, %t : !pypto.tile<64xf32, vec>
    pypto.tile.store %next, %out[%c0] : !pypto.tile<64xf32, vec>, !pypto.tensor<64xf32>
    %u = pypto.tile.load %x[%c0] : !pypto.tensor<64xf32> -> !pypto.tile<64xf32, vec>
    pypto.yield %next : !pypto.tile<64xf32, vec>
  }
  "test.pureop"(%r) : (!pypto.tile<64xf32, vec>) -> ()
  func.return
}
