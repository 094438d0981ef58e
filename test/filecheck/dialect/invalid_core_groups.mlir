// Kernels that run together (a cube kernel's pypto.vector_kernel and
// pypto.fifo_depth): every mistake is a located diagnostic of the tools'
// verifier (xdsl-opt does not check the groups).

// RUN: pypto-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @cube(%t: !pypto.tile<4x8xf32, vec>) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 2 : i64} {
  pypto.tile.tpush_to_aiv %t : !pypto.tile<4x8xf32, vec>
  %e = pypto.tile.tpop_from_aiv : !pypto.tile<4x8xf32, vec>
  func.return
}
func.func @vec(%t: !pypto.tile<4x8xf32, vec>) {
  %s = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>
  func.return
}
// CHECK:      %e = "pypto.tile.tpop_from_aiv"
// CHECK-NEXT: ^
// CHECK-NEXT: | no push of @vec feeds this pop (aiv_to_aic)

// -----

func.func @cube(%t: !pypto.tile<4x8xf32, vec>) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 0 : i64} {
  pypto.tile.tpush_to_aiv %t : !pypto.tile<4x8xf32, vec>
  func.return
}
func.func @vec() {
  %s = pypto.tile.tpop_from_aic : !pypto.tile<4x8xf32, vec>
  func.return
}
// CHECK:      "func.func"() <{sym_name = "cube"
// CHECK-NEXT: ^
// CHECK-NEXT: | pypto.fifo_depth must be at least 1, got 0

// -----

func.func @cube(%t: !pypto.tile<4x8xf32, vec>) attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 2 : i64} {
  pypto.tile.tpush_to_aiv %t : !pypto.tile<4x8xf32, vec>
  func.return
}
func.func @vec() {
  %s = pypto.tile.tpop_from_aic : !pypto.tile<8x8xf32, vec>
  func.return
}
// CHECK:      %s = "pypto.tile.tpop_from_aic"() : () -> !pypto.tile<8x8xf32, vec>
// CHECK-NEXT: ^
// CHECK-NEXT: | pops !pypto.tile<8x8xf32, vec>, but @cube pushes only !pypto.tile<4x8xf32, vec> on aic_to_aiv

// -----

func.func @cube() attributes {pypto.vector_kernel = @nowhere, pypto.fifo_depth = 2 : i64} {
  func.return
}
// CHECK:      "func.func"() <{sym_name = "cube"
// CHECK-NEXT: ^
// CHECK-NEXT: | pypto.vector_kernel: no function @nowhere with a body

// -----

func.func @cube() attributes {pypto.vector_kernel = @vec} {
  func.return
}
func.func @vec() {
  func.return
}
// CHECK:      "func.func"() <{sym_name = "cube"
// CHECK-NEXT: ^
// CHECK-NEXT: | a kernel with pypto.vector_kernel needs pypto.fifo_depth (an integer)

// -----

func.func @cube() attributes {pypto.vector_kernel = @cube, pypto.fifo_depth = 2 : i64} {
  func.return
}
// CHECK:      "func.func"() <{sym_name = "cube"
// CHECK-NEXT: ^
// CHECK-NEXT: | pypto.vector_kernel: a kernel cannot be its own vector kernel

// -----

func.func @cube() attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 2 : i64} {
  func.return
}
func.func @other() attributes {pypto.vector_kernel = @vec, pypto.fifo_depth = 2 : i64} {
  func.return
}
func.func @vec() {
  func.return
}
// CHECK:      "func.func"() <{sym_name = "other"
// CHECK-NEXT: ^
// CHECK-NEXT: | @vec is already in the group of @cube
