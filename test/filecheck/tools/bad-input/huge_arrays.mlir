// A type no machine can hold is an error, not a MemoryError: no tensor or
// tile of a run may hold more than --max-elements elements.

// RUN: not pypto-run %s --entry huge_parameter 2>&1 | filecheck %s
// RUN: not pypto-run %s --entry huge_tile 2>&1 | filecheck %s --check-prefix=TILE
// RUN: not pypto-run %s --entry huge_tile --max-elements 1023 2>&1 | filecheck %s --check-prefix=SMALL
// RUN: pypto-run %s --entry small --max-elements 1024 | filecheck %s --check-prefix=FITS

func.func @huge_parameter(%x: !pypto.tensor<1000000x1000000xf32>) {
  func.return
}

// CHECK:     huge_arrays.mlir:[[# @LINE - 4]]:1: error: func.func: block argument %x of type !pypto.tensor<1000000x1000000xf32> has 1,000,000,000,000 elements, more than a run may hold (67,108,864); raise the limit with --max-elements (pypto-run) or max_elements (run_kernel)
// CHECK-NOT: Traceback

func.func @huge_tile(%x: !pypto.tensor<1024xf32>) {
  %s = arith.constant 0.0 : f32
  %t = pypto.tile.full %s : f32 -> !pypto.tile<100000x100000xf32, vec>
  func.return
}

// TILE:      huge_arrays.mlir:[[# @LINE - 4]]:3: error: pypto.tile.full: result %t of type !pypto.tile<100000x100000xf32, vec> has 10,000,000,000 elements
// TILE-NOT:  Traceback
// SMALL:     error: func.func: block argument %x of type !pypto.tensor<1024xf32> has 1,024 elements, more than a run may hold (1,023)

func.func @small(%x: !pypto.tensor<1024xf32>) {
  func.return
}

// FITS:      @small
