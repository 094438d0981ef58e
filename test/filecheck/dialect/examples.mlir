// The bundled examples parse, verify, and round-trip unchanged through the
// custom and the generic form.

// RUN: xdsl-opt %examples/add_one.mlir | filecheck %s --check-prefix=ADD
// RUN: xdsl-opt %examples/add_one.mlir > %t && xdsl-opt %examples/add_one.mlir | %roundtrip-generic | diff %t -
// RUN: xdsl-opt %examples/row_softmax.mlir | filecheck %s --check-prefix=SOFTMAX
// RUN: xdsl-opt %examples/row_softmax.mlir > %t && xdsl-opt %examples/row_softmax.mlir | %roundtrip-generic | diff %t -
// RUN: xdsl-opt %examples/matmul_k_loop.mlir | filecheck %s --check-prefix=MATMUL
// RUN: xdsl-opt %examples/matmul_k_loop.mlir > %t && xdsl-opt %examples/matmul_k_loop.mlir | %roundtrip-generic | diff %t -

// ADD-LABEL: func.func @add_one(
// ADD:         pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 4 {
// ADD:           pypto.tile.load
// ADD:           pypto.tile.adds
// ADD:           pypto.tile.store

// SOFTMAX-LABEL: func.func @row_softmax(
// SOFTMAX:         pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 {
// SOFTMAX:           pypto.tile.row_max
// SOFTMAX:           pypto.tile.row_expand_sub
// SOFTMAX:           pypto.tile.row_sum
// SOFTMAX:           pypto.tile.row_expand_div
// SOFTMAX:           pypto.tile.store

// MATMUL-LABEL: func.func @matmul_k_loop(
// MATMUL:         pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 iter_args(
// MATMUL:           pypto.tile.load {{.*}} -> !pypto.tile<16x64xbf16, mat>
// MATMUL:           pypto.tile.load {{.*}} -> !pypto.tile<64x256xbf16, mat>
// MATMUL:           pypto.tile.extract {{.*}} -> !pypto.tile<16x64xbf16, left>
// MATMUL:           pypto.tile.extract {{.*}} -> !pypto.tile<64x256xbf16, right>
// MATMUL:           pypto.tile.matmul_acc
// MATMUL:           pypto.yield
