// One case per verifier rule of declared allocations and bindings: the
// diagnostic names the problem and is attached to the offending op.

// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @name_not_an_identifier() {
  %a = pypto.alloc "pipe x" : !pypto.alloc<vec>
  func.return
}
// CHECK:      %a = "pypto.alloc"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: allocation name "pipe x" is not an identifier

// -----

func.func @long_name_shortened() {
  %a = pypto.alloc "a-name-that-goes-on-and-on-and-on-and-on-and-on" : !pypto.alloc<vec>
  func.return
}
// CHECK: | Operation does not verify: allocation name "a-name-that-goes-on-and-on-and-on-and..." is not an identifier

// -----

func.func @no_slot() {
  %a = pypto.alloc "a" slots 0 : !pypto.alloc<vec>
  func.return
}
// CHECK: | Operation does not verify: an allocation has 1 to 16 slots, got 0

// -----

func.func @too_many_slots() {
  %a = pypto.alloc "a" slots 9223372036854775807 : !pypto.alloc<vec>
  func.return
}
// CHECK: | Operation does not verify: an allocation has 1 to 16 slots, got 9223372036854775807

// -----

func.func @slots_in_left() {
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<left>
  func.return
}
// CHECK: | Operation does not verify: an allocation of 2 slots must be in memory space acc, mat, vec, got left

// -----

func.func @used_by_another_op() {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  "test.op"(%a) : (!pypto.alloc<vec>) -> ()
  func.return
}
// CHECK: | Operation does not verify: allocation "a" is used by 'test.op': only pypto.bind binds to an allocation

// -----

func.func @slots_not_uniform(%t: !pypto.tile<64x64xf32, vec>, %u: !pypto.tile<32x64xf32, vec>, %i: index) {
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<vec>
  %b0 = pypto.bind %t to %a[%i] : !pypto.tile<64x64xf32, vec>
  %b1 = pypto.bind %u to %a[%i] : !pypto.tile<32x64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: the slots of allocation "a" are uniform, but tiles of types !pypto.tile<32x64xf32, vec> and !pypto.tile<64x64xf32, vec> are bound to them

// -----

// One slot: tiles of different shapes may share it.
func.func @one_slot_any_shape(%t: !pypto.tile<64x64xf32, vec>, %u: !pypto.tile<32x64xf16, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b0 = pypto.bind %t to %a : !pypto.tile<64x64xf32, vec>
  %b1 = pypto.bind %u to %a : !pypto.tile<32x64xf16, vec>
  func.return
}
// CHECK-LABEL: func.func @one_slot_any_shape(
// CHECK-NOT:   does not verify

// -----

func.func @declared_twice() {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %c0 = arith.constant 0 : index
  %b = pypto.alloc "a" slots 2 : !pypto.alloc<mat>
  func.return
}
// CHECK:      %a = "pypto.alloc"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: allocation "a" is declared twice in the function

// -----

func.func @declared_in_a_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = pypto.alloc "a" : !pypto.alloc<vec>
  }
  func.return
}
// CHECK: | Operation does not verify: 'pypto.alloc' expects parent op 'func.func'

// -----

func.func @not_a_declaration(%a: !pypto.alloc<vec>, %t: !pypto.tile<64xf32, vec>) {
  %b = pypto.bind %t to %a : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: the allocation must be the result of a pypto.alloc

// -----

func.func @other_space(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<mat>
  %b = "pypto.bind"(%t, %a) : (!pypto.tile<64xf32, vec>, !pypto.alloc<mat>) -> !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: a tile in memory space vec cannot be bound to allocation "a" in mat

// -----

func.func @result_type(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = "pypto.bind"(%t, %a) : (!pypto.tile<64xf32, vec>, !pypto.alloc<vec>) -> !pypto.tile<32xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: result 'result' at position 0 does not verify:

// -----

func.func @no_slot_index(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<vec>
  %b = pypto.bind %t to %a : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %b = "pypto.bind"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: a binding to allocation "a" of 2 slots needs a slot index

// -----

func.func @slot_index_of_one_slot(%t: !pypto.tile<64xf32, vec>, %i: index) {
  %a = pypto.alloc "a" : !pypto.alloc<vec>
  %b = pypto.bind %t to %a[%i] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: allocation "a" has one slot: a binding to it takes no slot index

// -----

func.func @slot_index_out_of_range(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" slots 2 : !pypto.alloc<vec>
  %c2 = arith.constant 2 : index
  %b = pypto.bind %t to %a[%c2] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: slot index 2 is out of range of allocation "a" of 2 slots

// -----

func.func @negative_slot_index(%t: !pypto.tile<64xf32, vec>) {
  %a = pypto.alloc "a" slots 4 : !pypto.alloc<vec>
  %c = arith.constant -9223372036854775808 : index
  %b = pypto.bind %t to %a[%c] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK: | Operation does not verify: slot index -9223372036854775808 is out of range of allocation "a" of 4 slots
