// The bundled examples as PyPTO programs (examples/pypto/*.py): each one runs
// bit-identically to its .mlir twin, before and after both passes; and the
// quick-start command prints the pipelined add_one as PyPTO text.

// RUN: xdsl-opt -f pypto %examples/pypto/add_one.py -p lower-pipeline-loops,canonicalize-io-order -t pypto | filecheck %s --check-prefix=DONE
// RUN: pypto-opt %examples/pypto/add_one.py -p lower-pipeline-loops,canonicalize-io-order -t pypto | filecheck %s --check-prefix=DONE

// RUN: pypto-run %examples/add_one.mlir > %t.add.mlir.txt
// RUN: pypto-run %examples/pypto/add_one.py --passes lower-pipeline-loops,canonicalize-io-order > %t.add.py.txt
// RUN: cat %t.add.mlir.txt %t.add.py.txt | filecheck %s --check-prefix=ADD
// RUN: pypto-run %examples/row_softmax.mlir > %t.softmax.mlir.txt
// RUN: pypto-run %examples/pypto/row_softmax.py --passes lower-pipeline-loops,canonicalize-io-order > %t.softmax.py.txt
// RUN: cat %t.softmax.mlir.txt %t.softmax.py.txt | filecheck %s --check-prefix=SOFTMAX
// RUN: pypto-run %examples/matmul_k_loop.mlir > %t.matmul.mlir.txt
// RUN: pypto-run %examples/pypto/matmul_k_loop.py --entry matmul_k_loop --passes lower-pipeline-loops,canonicalize-io-order > %t.matmul.py.txt
// RUN: cat %t.matmul.mlir.txt %t.matmul.py.txt | filecheck %s --check-prefix=MATMUL

// An .mlir example through the target and back runs the same.
// RUN: xdsl-opt %examples/add_one.mlir -t pypto -o %t.add.py
// RUN: pypto-run %t.add.py > %t.add.again.txt
// RUN: cat %t.add.mlir.txt %t.add.again.txt | filecheck %s --check-prefix=AGAIN

// DONE:      # pypto.program: AddOne
// DONE-NEXT: import pypto.language as pl
// DONE-EMPTY:
// DONE-EMPTY:
// DONE-NEXT: @pl.program
// DONE-NEXT: class AddOne:
// DONE-NEXT:     @pl.function
// DONE-NEXT:     def add_one(self, x: pl.Tensor[[1024], pl.FP32], out: pl.Tensor[[1024], pl.FP32]):
// DONE-NEXT:         for i, (out_1,) in pl.range(0, 8, 4, init_values=(out,)):
// DONE-NEXT:             off: pl.Scalar[pl.INDEX] = i * 128
// DONE-NEXT:             i_1: pl.Scalar[pl.INDEX] = i + 1
// DONE-NEXT:             off_1: pl.Scalar[pl.INDEX] = i_1 * 128
// DONE-NEXT:             i_2: pl.Scalar[pl.INDEX] = i + 2
// DONE-NEXT:             off_2: pl.Scalar[pl.INDEX] = i_2 * 128
// DONE-NEXT:             i_3: pl.Scalar[pl.INDEX] = i + 3
// DONE-NEXT:             off_3: pl.Scalar[pl.INDEX] = i_3 * 128
// DONE-NEXT:             t: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off], [128], [128], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:0"})
// DONE-NEXT:             t_1: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off_1], [128], [128], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:1"})
// DONE-NEXT:             t_2: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off_2], [128], [128], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:2"})
// DONE-NEXT:             t_3: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off_3], [128], [128], target_memory=pl.Mem.Vec, attrs={"pipeline_membership": "0:3"})
// DONE-NEXT:             y: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0, attrs={"pipeline_membership": "0:0"})
// DONE-NEXT:             out_2: pl.Tensor[[1024], pl.FP32] = pl.tile.store(y, [off], out_1)
// DONE-NEXT:             y_1: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t_1, 1.0, attrs={"pipeline_membership": "0:1"})
// DONE-NEXT:             out_3: pl.Tensor[[1024], pl.FP32] = pl.tile.store(y_1, [off_1], out_2)
// DONE-NEXT:             y_2: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t_2, 1.0, attrs={"pipeline_membership": "0:2"})
// DONE-NEXT:             out_4: pl.Tensor[[1024], pl.FP32] = pl.tile.store(y_2, [off_2], out_3)
// DONE-NEXT:             y_3: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t_3, 1.0, attrs={"pipeline_membership": "0:3"})
// DONE-NEXT:             out_5: pl.Tensor[[1024], pl.FP32] = pl.tile.store(y_3, [off_3], out_4)
// DONE-NEXT:             out_6 = pl.yield_(out_5)
// DONE-EMPTY:
// DONE-NOT:  {{.}}

// ADD:      @add_one: seed 0
// ADD-NEXT:   %x    unchanged  1024xf32  {{.*}} sha256 [[X:[0-9a-f]+]]
// ADD-NEXT:   %out  written    1024xf32  {{.*}} sha256 [[OUT:[0-9a-f]+]]
// ADD-NEXT: @add_one: seed 0
// ADD-NEXT:   %x    unchanged  1024xf32  {{.*}} sha256 [[X]]
// ADD-NEXT:   %out  written    1024xf32  {{.*}} sha256 [[OUT]]
// ADD-NEXT: after --passes 'lower-pipeline-loops,canonicalize-io-order': all 2 outputs bit-identical

// SOFTMAX:      @row_softmax: seed 0
// SOFTMAX-NEXT:   %x    unchanged  128x64xf32  {{.*}} sha256 [[X:[0-9a-f]+]]
// SOFTMAX-NEXT:   %out  written    128x64xf32  {{.*}} sha256 [[OUT:[0-9a-f]+]]
// SOFTMAX-NEXT: @row_softmax: seed 0
// SOFTMAX-NEXT:   %x    unchanged  128x64xf32  {{.*}} sha256 [[X]]
// SOFTMAX-NEXT:   %out  written    128x64xf32  {{.*}} sha256 [[OUT]]
// SOFTMAX-NEXT: after --passes 'lower-pipeline-loops,canonicalize-io-order': all 2 outputs bit-identical

// MATMUL:      @matmul_k_loop: seed 0
// MATMUL-NEXT:   %a  unchanged  16x512xbf16  {{.*}} sha256 [[A:[0-9a-f]+]]
// MATMUL-NEXT:   %b  unchanged  512x256xbf16  {{.*}} sha256 [[B:[0-9a-f]+]]
// MATMUL-NEXT:   %c  written    16x256xf32  {{.*}} sha256 [[C:[0-9a-f]+]]
// MATMUL-NEXT: @matmul_k_loop: seed 0
// MATMUL-NEXT:   %a  unchanged  16x512xbf16  {{.*}} sha256 [[A]]
// MATMUL-NEXT:   %b  unchanged  512x256xbf16  {{.*}} sha256 [[B]]
// MATMUL-NEXT:   %c  written    16x256xf32  {{.*}} sha256 [[C]]
// MATMUL-NEXT: after --passes 'lower-pipeline-loops,canonicalize-io-order': all 3 outputs bit-identical

// AGAIN:      @add_one: seed 0
// AGAIN-NEXT:   %x    unchanged  1024xf32  {{.*}} sha256 [[X:[0-9a-f]+]]
// AGAIN-NEXT:   %out  written    1024xf32  {{.*}} sha256 [[OUT:[0-9a-f]+]]
// AGAIN-NEXT: @add_one: seed 0
// AGAIN-NEXT:   %x    unchanged  1024xf32  {{.*}} sha256 [[X]]
// AGAIN-NEXT:   %out  written    1024xf32  {{.*}} sha256 [[OUT]]
