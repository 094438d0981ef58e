// One case per verifier rule of the tile ops: the diagnostic names the
// problem and is attached to the offending op.

// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @load_rank(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: ranks differ: !pypto.tensor<128x64xf32> and !pypto.tile<64xf32, vec>

// -----

func.func @load_element_type(%x: !pypto.tensor<128xf32>, %i: index) {
  %t = pypto.tile.load %x[%i] : !pypto.tensor<128xf32> -> !pypto.tile<64xbf16, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: f32 and bf16

// -----

func.func @load_offset_count(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i, %i, %i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 2 tensor offsets (one per dimension), got 3

// -----

func.func @load_window_larger_than_tensor(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %t = pypto.tile.load %x[%i, %i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x128xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window of 128 elements does not fit in dimension 1 of size 64

// -----

func.func @load_out_of_bounds(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %c96 = arith.constant 96 : index
  %t = pypto.tile.load %x[%c96, %i] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window [96, 160) is out of bounds of dimension 0 of size 128

// -----

func.func @load_negative_offset(%x: !pypto.tensor<128x64xf32>, %i: index) {
  %neg = arith.constant -1 : index
  %t = pypto.tile.load %x[%i, %neg] : !pypto.tensor<128x64xf32> -> !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window [-1, 63) is out of bounds of dimension 1 of size 64

// -----

func.func @load_from_tile(%x: !pypto.tile<128xf32, vec>, %i: index) {
  %t = "pypto.tile.load"(%x, %i) : (!pypto.tile<128xf32, vec>, index) -> !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: operand 'src' at position 0 does not verify:
// CHECK-NEXT: | !pypto.tile<128xf32, vec> should be of base attribute pypto.tensor

// -----

func.func @load_offset_not_index(%x: !pypto.tensor<128xf32>, %i: i32) {
  %t = "pypto.tile.load"(%x, %i) : (!pypto.tensor<128xf32>, i32) -> !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.load"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: operand 'offsets' at position 1 does not verify:
// CHECK-NEXT: | i32 should be of base attribute index

// -----

func.func @store_rank(%t: !pypto.tile<64xf32, vec>, %x: !pypto.tensor<128x64xf32>, %i: index) {
  pypto.tile.store %t, %x[%i, %i] : !pypto.tile<64xf32, vec>, !pypto.tensor<128x64xf32>
  func.return
}
// CHECK:      "pypto.tile.store"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: ranks differ: !pypto.tile<64xf32, vec> and !pypto.tensor<128x64xf32>

// -----

func.func @store_element_type(%t: !pypto.tile<64xf16, vec>, %x: !pypto.tensor<128xf32>, %i: index) {
  pypto.tile.store %t, %x[%i] : !pypto.tile<64xf16, vec>, !pypto.tensor<128xf32>
  func.return
}
// CHECK:      "pypto.tile.store"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: f16 and f32

// -----

func.func @store_offset_count(%t: !pypto.tile<64xf32, vec>, %x: !pypto.tensor<128xf32>) {
  pypto.tile.store %t, %x[] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  func.return
}
// CHECK:      "pypto.tile.store"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 1 tensor offsets (one per dimension), got 0

// -----

func.func @store_window_larger_than_tensor(%t: !pypto.tile<256xf32, vec>, %x: !pypto.tensor<128xf32>, %i: index) {
  pypto.tile.store %t, %x[%i] : !pypto.tile<256xf32, vec>, !pypto.tensor<128xf32>
  func.return
}
// CHECK:      "pypto.tile.store"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window of 256 elements does not fit in dimension 0 of size 128

// -----

func.func @store_out_of_bounds(%t: !pypto.tile<64xf32, vec>, %x: !pypto.tensor<128xf32>) {
  %c72 = arith.constant 72 : index
  pypto.tile.store %t, %x[%c72] : !pypto.tile<64xf32, vec>, !pypto.tensor<128xf32>
  func.return
}
// CHECK:      "pypto.tile.store"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window [72, 136) is out of bounds of dimension 0 of size 128

// -----

func.func @read_result_type(%t: !pypto.tile<64xf32, vec>, %i: index) {
  %e = "pypto.tile.read"(%t, %i) : (!pypto.tile<64xf32, vec>, index) -> f16
  func.return
}
// CHECK:      %e = "pypto.tile.read"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result type f16 must equal the tile element type f32

// -----

func.func @read_index_count(%t: !pypto.tile<64x64xf32, vec>, %i: index) {
  %e = pypto.tile.read %t[%i] : !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %e = "pypto.tile.read"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 2 indices (one per dimension), got 1

// -----

func.func @read_out_of_bounds(%t: !pypto.tile<64x64xf32, vec>, %i: index) {
  %c64 = arith.constant 64 : index
  %e = pypto.tile.read %t[%i, %c64] : !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %e = "pypto.tile.read"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: index 64 is out of bounds of dimension 1 of size 64

// -----

func.func @write_value_type(%v: i32, %t: !pypto.tile<64xf32, vec>, %i: index) {
  %t2 = "pypto.tile.write"(%v, %t, %i) : (i32, !pypto.tile<64xf32, vec>, index) -> !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t2 = "pypto.tile.write"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: value type i32 must equal the tile element type f32

// -----

func.func @write_result_type(%v: f32, %t: !pypto.tile<64xf32, vec>, %i: index) {
  %t2 = "pypto.tile.write"(%v, %t, %i) : (f32, !pypto.tile<64xf32, vec>, index) -> !pypto.tile<64xf32, mat>
  func.return
}
// CHECK:      %t2 = "pypto.tile.write"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<64xf32, vec> expected from variable 'T', but got !pypto.tile<64xf32, mat>

// -----

func.func @write_index_count(%v: f32, %t: !pypto.tile<64xf32, vec>, %i: index) {
  %t2 = pypto.tile.write %v, %t[%i, %i] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t2 = "pypto.tile.write"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 1 indices (one per dimension), got 2

// -----

func.func @write_out_of_bounds(%v: f32, %t: !pypto.tile<64xf32, vec>) {
  %neg = arith.constant -3 : index
  %t2 = pypto.tile.write %v, %t[%neg] : !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %t2 = "pypto.tile.write"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: index -3 is out of bounds of dimension 0 of size 64

// -----

func.func @extract_rank(%m: !pypto.tile<128x256xbf16, mat>, %i: index) {
  %r = pypto.tile.extract %m[%i, %i] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<256xbf16, right>
  func.return
}
// CHECK:      %r = "pypto.tile.extract"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: ranks differ: !pypto.tile<128x256xbf16, mat> and !pypto.tile<256xbf16, right>

// -----

func.func @extract_element_type(%m: !pypto.tile<128x256xbf16, mat>, %i: index) {
  %r = pypto.tile.extract %m[%i, %i] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<64x256xf16, right>
  func.return
}
// CHECK:      %r = "pypto.tile.extract"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: bf16 and f16

// -----

func.func @extract_offset_count(%m: !pypto.tile<128x256xbf16, mat>, %i: index) {
  %r = pypto.tile.extract %m[%i] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
  func.return
}
// CHECK:      %r = "pypto.tile.extract"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 2 tile offsets (one per dimension), got 1

// -----

func.func @extract_larger_than_source(%m: !pypto.tile<128x256xbf16, mat>, %i: index) {
  %r = pypto.tile.extract %m[%i, %i] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<256x256xbf16, right>
  func.return
}
// CHECK:      %r = "pypto.tile.extract"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window of 256 elements does not fit in dimension 0 of size 128

// -----

func.func @extract_out_of_bounds(%m: !pypto.tile<128x256xbf16, mat>) {
  %c0 = arith.constant 0 : index
  %c80 = arith.constant 80 : index
  %r = pypto.tile.extract %m[%c80, %c0] : !pypto.tile<128x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
  func.return
}
// CHECK:      %r = "pypto.tile.extract"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: window [80, 144) is out of bounds of dimension 0 of size 128

// -----

func.func @move_shape(%m: !pypto.tile<32x32xbf16, mat>) {
  %l = pypto.tile.move %m : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<16x32xbf16, left>
  func.return
}
// CHECK:      %l = "pypto.tile.move"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: move must keep the shape, got 32x32 -> 16x32

// -----

func.func @move_element_type(%m: !pypto.tile<32x32xbf16, mat>) {
  %l = pypto.tile.move %m : !pypto.tile<32x32xbf16, mat> -> !pypto.tile<32x32xf32, left>
  func.return
}
// CHECK:      %l = "pypto.tile.move"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: bf16 and f32

// -----

func.func @matmul_lhs_space(%a: !pypto.tile<16x64xbf16, mat>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, mat>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: lhs must be in memory space left, got mat

// -----

func.func @matmul_rhs_space(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, left>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, left> -> !pypto.tile<16x256xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: rhs must be in memory space right, got left

// -----

func.func @matmul_result_space(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, vec>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result must be in memory space acc, got vec

// -----

func.func @matmul_rank(%a: !pypto.tile<2x16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<2x16x64xbf16, left>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: matmul lhs must be rank 2, got !pypto.tile<2x16x64xbf16, left>

// -----

func.func @matmul_contraction(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<32x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<32x256xbf16, right> -> !pypto.tile<16x256xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: matmul contraction sizes differ: lhs is 16x64, rhs is 32x256

// -----

func.func @matmul_result_shape(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right> -> !pypto.tile<16x128xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: matmul of 16x64 and 64x256 must produce 16x256, got 16x128

// -----

func.func @matmul_operand_element_types(%a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xf16, right>) {
  %c = pypto.tile.matmul %a, %b : !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xf16, right> -> !pypto.tile<16x256xf32, acc>
  func.return
}
// CHECK:      %c = "pypto.tile.matmul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: bf16 and f16

// -----

func.func @matmul_acc_shape(%c: !pypto.tile<16x128xf32, acc>, %a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %d = pypto.tile.matmul_acc %c, %a, %b : !pypto.tile<16x128xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>
  func.return
}
// CHECK:      %d = "pypto.tile.matmul_acc"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: matmul of 16x64 and 64x256 must produce 16x256, got 16x128

// -----

func.func @matmul_acc_space(%c: !pypto.tile<16x256xf32, vec>, %a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %d = pypto.tile.matmul_acc %c, %a, %b : !pypto.tile<16x256xf32, vec>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>
  func.return
}
// CHECK:      %d = "pypto.tile.matmul_acc"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result must be in memory space acc, got vec

// -----

func.func @matmul_acc_result_type(%c: !pypto.tile<16x256xf32, acc>, %a: !pypto.tile<16x64xbf16, left>, %b: !pypto.tile<64x256xbf16, right>) {
  %d = "pypto.tile.matmul_acc"(%c, %a, %b) : (!pypto.tile<16x256xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>) -> !pypto.tile<16x256xf16, acc>
  func.return
}
// CHECK:      %d = "pypto.tile.matmul_acc"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<16x256xf32, acc> expected from variable 'T', but got !pypto.tile<16x256xf16, acc>

// -----

func.func @binary_operand_types(%x: !pypto.tile<64x64xf32, vec>, %y: !pypto.tile<64x32xf32, vec>) {
  %z = "pypto.tile.add"(%x, %y) : (!pypto.tile<64x64xf32, vec>, !pypto.tile<64x32xf32, vec>) -> !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.add"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: operand 'rhs' at position 1 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<64x64xf32, vec> expected from variable 'T', but got !pypto.tile<64x32xf32, vec>

// -----

func.func @binary_result_type(%x: !pypto.tile<64x64xf32, vec>) {
  %z = "pypto.tile.max"(%x, %x) : (!pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, vec>) -> !pypto.tile<64x64xf32, mat>
  func.return
}
// CHECK:      %z = "pypto.tile.max"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<64x64xf32, vec> expected from variable 'T', but got !pypto.tile<64x64xf32, mat>

// -----

func.func @tile_scalar_type(%x: !pypto.tile<64x64xf32, vec>, %s: i32) {
  %z = pypto.tile.muls %x, %s : !pypto.tile<64x64xf32, vec>, i32
  func.return
}
// CHECK:      %z = "pypto.tile.muls"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: scalar type i32 must equal the tile element type f32

// -----

func.func @tile_scalar_result_type(%x: !pypto.tile<64x64xf32, vec>, %s: f32) {
  %z = "pypto.tile.adds"(%x, %s) : (!pypto.tile<64x64xf32, vec>, f32) -> !pypto.tile<64x64xf16, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.adds"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<64x64xf32, vec> expected from variable 'T', but got !pypto.tile<64x64xf16, vec>

// -----

func.func @unary_result_type(%x: !pypto.tile<64x64xf32, vec>) {
  %z = "pypto.tile.exp"(%x) : (!pypto.tile<64x64xf32, vec>) -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.exp"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | attribute !pypto.tile<64x64xf32, vec> expected from variable 'T', but got !pypto.tile<64x1xf32, vec>

// -----

func.func @cast_shape(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.cast %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x32xbf16, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.cast"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: cast must keep the shape, got 64x64 -> 64x32

// -----

func.func @cast_space(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.cast %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x64xbf16, mat>
  func.return
}
// CHECK:      %z = "pypto.tile.cast"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: cast must keep the memory space, got vec -> mat

// -----

func.func @row_reduction_rank(%x: !pypto.tile<64xf32, vec>) {
  %z = pypto.tile.row_sum %x : !pypto.tile<64xf32, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_sum"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op source must be rank 2, got !pypto.tile<64xf32, vec>

// -----

func.func @row_reduction_result_shape(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.row_max %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<1x64xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_max"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op result must have shape 64x1, got 1x64

// -----

func.func @row_reduction_element_type(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.row_sum %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf16, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_sum"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: f32 and f16

// -----

func.func @row_scratch_element_type(%x: !pypto.tile<64x64xf32, vec>, %s: !pypto.tile<64x64xbf16, vec>) {
  %z = pypto.tile.row_sum %x, %s : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xbf16, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_sum"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op scratch tile must have the source's element type f32, got bf16

// -----

func.func @row_scratch_small(%x: !pypto.tile<64x64xf32, vec>, %s: !pypto.tile<64x32xf32, vec>) {
  %z = pypto.tile.row_max %x, %s : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x32xf32, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_max"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op scratch tile must be rank 2 and at least 64x64 (the source), got 64x32

// -----

func.func @row_scratch_rank(%x: !pypto.tile<64x64xf32, vec>, %s: !pypto.tile<4096xf32, vec>) {
  %z = pypto.tile.row_max %x, %s : !pypto.tile<64x64xf32, vec>, !pypto.tile<4096xf32, vec> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_max"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op scratch tile must be rank 2 and at least 64x64 (the source), got 4096

// -----

func.func @row_scratch_space(%x: !pypto.tile<64x64xf32, vec>, %s: !pypto.tile<64x64xf32, mat>) {
  %z = pypto.tile.row_max %x, %s : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x64xf32, mat> -> !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_max"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op scratch tile must be in memory space vec, got mat

// -----

func.func @row_reduction_space(%x: !pypto.tile<64x64xf32, vec>) {
  %z = pypto.tile.row_sum %x : !pypto.tile<64x64xf32, vec> -> !pypto.tile<64x1xf32, mat>
  func.return
}
// CHECK:      %z = "pypto.tile.row_sum"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op result must be in memory space vec, got mat

// -----

func.func @row_expand_source_rank(%x: !pypto.tile<2x64x64xf32, vec>, %r: !pypto.tile<64x1xf32, vec>) {
  %z = pypto.tile.row_expand_add %x, %r : !pypto.tile<2x64x64xf32, vec>, !pypto.tile<64x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_expand_add"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op source must be rank 2, got !pypto.tile<2x64x64xf32, vec>

// -----

func.func @row_expand_vector_rank(%x: !pypto.tile<64x64xf32, vec>, %r: !pypto.tile<64xf32, vec>) {
  %z = pypto.tile.row_expand_sub %x, %r : !pypto.tile<64x64xf32, vec>, !pypto.tile<64xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_expand_sub"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op row vector must be rank 2, got !pypto.tile<64xf32, vec>

// -----

func.func @row_expand_vector_shape(%x: !pypto.tile<64x64xf32, vec>, %r: !pypto.tile<32x1xf32, vec>) {
  %z = pypto.tile.row_expand_mul %x, %r : !pypto.tile<64x64xf32, vec>, !pypto.tile<32x1xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_expand_mul"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op row vector must have shape 64x1, got 32x1

// -----

func.func @row_expand_vector_element_type(%x: !pypto.tile<64x64xf32, vec>, %r: !pypto.tile<64x1xbf16, vec>) {
  %z = pypto.tile.row_expand_div %x, %r : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xbf16, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.row_expand_div"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: element types differ: f32 and bf16

// -----

func.func @row_expand_vector_space(%x: !pypto.tile<64x64xf32, vec>, %r: !pypto.tile<64x1xf32, mat>) {
  %z = pypto.tile.row_expand_div %x, %r : !pypto.tile<64x64xf32, vec>, !pypto.tile<64x1xf32, mat>
  func.return
}
// CHECK:      %z = "pypto.tile.row_expand_div"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: row op row vector must be in memory space vec, got mat

// -----

func.func @full_scalar_type(%s: f16) {
  %z = pypto.tile.full %s : f16 -> !pypto.tile<64x64xf32, vec>
  func.return
}
// CHECK:      %z = "pypto.tile.full"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: scalar type f16 must equal the tile element type f32

// -----

func.func @tpush_not_a_tile(%x: !pypto.tensor<64xf32>) {
  "pypto.tile.tpush_to_aiv"(%x) : (!pypto.tensor<64xf32>) -> ()
  func.return
}
// CHECK:      "pypto.tile.tpush_to_aiv"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: operand 'tile' at position 0 does not verify:
// CHECK-NEXT: | !pypto.tensor<64xf32> should be of base attribute pypto.tile

// -----

func.func @tpush_split_out_of_range(%t: !pypto.tile<16x64xf32, vec>) {
  pypto.tile.tpush_to_aiv %t {split = 5 : i64} : !pypto.tile<16x64xf32, vec>
  func.return
}
// CHECK:      "pypto.tile.tpush_to_aiv"(%t) {split = 5 : i64}
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: split must be 0 (none), 1 (up-down), 2 (left-right), 3 or 4 (the same over an odd extent), got 5

// -----

func.func @tpop_split_not_an_integer() {
  %t = pypto.tile.tpop_from_aic {split = "up"} : !pypto.tile<16x64xf32, vec>
  func.return
}
// CHECK:      %t = "pypto.tile.tpop_from_aic"() {split = "up"}
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: "up" should be of base attribute integer

// -----

func.func @tpop_not_a_tile() {
  %t = "pypto.tile.tpop_from_aiv"() : () -> f32
  func.return
}
// CHECK:      %t = "pypto.tile.tpop_from_aiv"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result 'result' at position 0 does not verify:
// CHECK-NEXT: | f32 should be of base attribute pypto.tile
