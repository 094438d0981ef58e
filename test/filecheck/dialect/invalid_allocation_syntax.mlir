// Parse errors of declared allocations and bindings, located at the
// offending text.

// RUN: xdsl-opt %s --split-input-file --parsing-diagnostics | filecheck %s

func.func private @unknown_space(!pypto.alloc<l1>)
// CHECK:      func.func private @unknown_space(!pypto.alloc<l1>)
// CHECK-NEXT:                                                ^^
// CHECK-NEXT: Expected `vec`, `mat`, `left`, `right`, `acc`, or `bias`.

// -----

func.func @alloc_type() {
  %a = pypto.alloc "a" : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %a = pypto.alloc "a" : !pypto.tile<64xf32, vec>
// CHECK-NEXT:                        ^
// CHECK-NEXT: expected a !pypto.alloc type, got !pypto.tile<64xf32, vec>

// -----

func.func @alloc_without_name() {
  %a = pypto.alloc : !pypto.alloc<vec>
  func.return
}
// CHECK: string literal expected

// -----

func.func @slot_count_too_large() {
  %a = pypto.alloc "a" slots 9223372036854775808 : !pypto.alloc<vec>
  func.return
}
// CHECK:      %a = pypto.alloc "a" slots 9223372036854775808 : !pypto.alloc<vec>
// CHECK-NEXT:                            ^^^^^^^^^^^^^^^^^^^
// CHECK-SAME: {{ *$}}
// CHECK-NEXT: the slot count does not fit in a 64-bit integer

// -----

func.func @negative_slot_count() {
  %a = pypto.alloc "a" slots -2 : !pypto.alloc<vec>
  func.return
}
// CHECK: Expected integer literal

// -----

func.func @bind_type(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = pypto.bind %t to %a : !pypto.alloc<vec>
  func.return
}
// CHECK:      %b = pypto.bind %t to %a : !pypto.alloc<vec>
// CHECK-NEXT:                            ^
// CHECK-NEXT: expected a !pypto.tile type, got !pypto.alloc<vec>

// -----

func.func @bind_without_to(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = pypto.bind %t, %a : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: Expected 'to'

// -----

// The allocation's type follows from the tile's memory space.
func.func @bind_other_space(%t: !pypto.tile<64xf32, mat>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = pypto.bind %t to %a : !pypto.tile<64xf32, mat>
  func.return
}
// CHECK: %b = pypto.bind %t to %a : !pypto.tile<64xf32, mat>
// CHECK: operand is used with type !pypto.alloc<mat>, but has been previously used or defined with type !pypto.alloc<vec>
