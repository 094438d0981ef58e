// Syntax errors, and invalid type and attribute parameters, are parse errors
// located at the offending text.

// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func private @tensor_rank_zero(!pypto.tensor<f32>)
// CHECK:      func.func private @tensor_rank_zero(!pypto.tensor<f32>)
// CHECK-NEXT:                                                   ^^^
// CHECK-NEXT: tensor must have at least one dimension

// -----

func.func private @tile_rank_zero(!pypto.tile<f32, vec>)
// CHECK:      tile must have at least one dimension

// -----

func.func private @zero_dimension(!pypto.tensor<128x0xf32>)
// CHECK:      func.func private @zero_dimension(!pypto.tensor<128x0xf32>)
// CHECK-NEXT:                                                 ^^^^^^^^^
// CHECK-NEXT: tensor dimensions must be positive, got 128x0

// -----

func.func private @dynamic_dimension(!pypto.tile<?x64xf32, vec>)
// CHECK:      tile dimensions must be static, got ?x64

// -----

func.func private @index_elements(!pypto.tensor<8xindex>)
// CHECK:      tensor element type must be a builtin float or a signless integer type (i1, i8, i16, i32, i64), got index

// -----

func.func private @signed_elements(!pypto.tile<8xsi32, vec>)
// CHECK:      tile element type must be a builtin float or a signless integer type (i1, i8, i16, i32, i64), got si32

// -----

func.func private @odd_width_elements(!pypto.tensor<8xi4>)
// CHECK:      tensor element type must be a builtin float or a signless integer type (i1, i8, i16, i32, i64), got i4

// -----

func.func private @tile_without_space(!pypto.tile<8xf32>)
// CHECK:      func.func private @tile_without_space(!pypto.tile<8xf32>)
// CHECK-NEXT:                                                       ^
// CHECK-NEXT: Expected ','

// -----

func.func private @unknown_space(!pypto.tile<8xf32, ub>)
// CHECK:      func.func private @unknown_space(!pypto.tile<8xf32, ub>)
// CHECK-NEXT:                                                     ^^
// CHECK-NEXT: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.

// -----

func.func private @unknown_space_attribute() attributes {space = #pypto.memory_space<L1>}
// CHECK:      Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.

// -----

func.func private @empty_membership() attributes {m = #pypto.membership<>}
// CHECK:      Expected integer literal (a non-negative group of a group:stage pair)

// -----

func.func private @negative_stage() attributes {m = #pypto.membership<0:-1>}
// CHECK:      Expected integer literal (a non-negative stage of a group:stage pair)

// -----

func.func private @membership_without_colon() attributes {m = #pypto.membership<0, 1>}
// CHECK:      Expected ':'

// -----

func.func @read_from_tensor(%x: !pypto.tensor<64xf32>, %i: index) {
  %e = pypto.tile.read %x[%i] : !pypto.tensor<64xf32>
  func.return
}
// CHECK:      %e = pypto.tile.read %x[%i] : !pypto.tensor<64xf32>
// CHECK-NEXT:                               ^
// CHECK-NEXT: expected a !pypto.tile type, got !pypto.tensor<64xf32>

// -----

func.func @write_into_scalar(%v: f32, %i: index) {
  %t = pypto.tile.write %v, %v[%i] : f32
  func.return
}
// CHECK:      expected a !pypto.tile type, got f32

// -----

func.func @offset_not_index(%x: !pypto.tensor<64xf32>, %f: f32) {
  %t = pypto.tile.load %x[%f] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
  func.return
}
// CHECK:      %t = pypto.tile.load %x[%f] : !pypto.tensor<64xf32> -> !pypto.tile<8xf32, vec>
// CHECK-NEXT:                         ^^
// CHECK-NEXT: operand is used with type index, but has been previously used or defined with type f32

// -----

func.func @iter_args_without_types(%n: index) {
  %r = pypto.pipeline %i = %n to %n step %n stages 2 iter_args(%a = %n, %b = %n) -> (index) {
    pypto.yield %a, %b : index, index
  }
  func.return
}
// CHECK:      2 iter_args but 1 result types

// -----

func.func @policy_twice(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages 2 overlap_stores = false overlap_stores = true {
  }
  func.return
}
// CHECK:      pypto.pipeline %i = %n to %n step %n stages 2 overlap_stores = false overlap_stores = true {
// CHECK-NEXT:                                                                       ^^^^^^^^^^^^^^^
// CHECK-NEXT: policy property overlap_stores is given twice

// -----

func.func @policy_not_boolean(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages 2 overlap_stores = 0 {
  }
  func.return
}
// CHECK:      Expected boolean literal

// -----

func.func @stages_missing(%n: index) {
  pypto.pipeline %i = %n to %n step %n {
  }
  func.return
}
// CHECK:      Expected 'stages'

// -----

func.func @stages_too_large(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages 99999999999999999999999 {
  }
  func.return
}
// CHECK:      pypto.pipeline %i = %n to %n step %n stages 99999999999999999999999 {
// CHECK-NEXT:                                             ^^^^^^^^^^^^^^^^^^^^^^^
// CHECK-NEXT: stages 99999999999999999999999 does not fit in a 64-bit integer

// -----

// A row reduction takes its source and at most one scratch tile.
func.func @row_scratch_twice(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.row_max %x, %x, %x : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = pypto.tile.row_max %x, %x, %x
// CHECK-NEXT:                                ^
// CHECK-NEXT: Expected ':'
