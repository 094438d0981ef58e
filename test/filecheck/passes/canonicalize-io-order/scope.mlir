// RUN: xdsl-opt -p canonicalize-io-order --split-input-file %s | filecheck %s

// Outside pipeline loops nothing is reordered: a function body with
// interleaved loads and stores stays as it is.

// CHECK-LABEL: func.func @function_body
// CHECK-NEXT:    %c0 = arith.constant 0 : index
// CHECK-NEXT:    %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:    %ea = pypto.tile.exp %a
// CHECK-NEXT:    pypto.tile.store %ea, %out[%c0]
// CHECK-NEXT:    %c128 = arith.constant 128 : index
// CHECK-NEXT:    %b = pypto.tile.load %x[%c128]
// CHECK-NEXT:    %eb = pypto.tile.exp %b
// CHECK-NEXT:    pypto.tile.store %eb, %out[%c128]
// CHECK-NEXT:    func.return
func.func @function_body(%x: !pypto.tensor<256xf32>, %out: !pypto.tensor<256xf32>) {
  %c0 = arith.constant 0 : index
  %a = pypto.tile.load %x[%c0] : !pypto.tensor<256xf32> -> !pypto.tile<128xf32, vec>
  %ea = pypto.tile.exp %a : !pypto.tile<128xf32, vec>
  pypto.tile.store %ea, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<256xf32>
  %c128 = arith.constant 128 : index
  %b = pypto.tile.load %x[%c128] : !pypto.tensor<256xf32> -> !pypto.tile<128xf32, vec>
  %eb = pypto.tile.exp %b : !pypto.tile<128xf32, vec>
  pypto.tile.store %eb, %out[%c128] : !pypto.tile<128xf32, vec>, !pypto.tensor<256xf32>
  func.return
}

// -----

// The shape lower-pipeline-loops produces for 3 iterations with stages 2: a
// main loop of two copies, then one static remainder copy after it. The main
// loop body is reordered; the remainder, outside the loop, is not.

// CHECK-LABEL: func.func @static_remainder
// CHECK:         scf.for %i = %c0 to %c2 step %c2 {
// CHECK-NEXT:      %i_1 = arith.addi %i, %c1 : index
// CHECK-NEXT:      %t = pypto.tile.load %x[%i, %c0]
// CHECK-NEXT:      %t_1 = pypto.tile.load %x[%i_1, %c0]
// CHECK-NEXT:      %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>}
// CHECK-NEXT:      pypto.tile.store %y, %out[%i, %c0]
// CHECK-NEXT:      %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:      pypto.tile.store %y_1, %out[%i_1, %c0]
// CHECK-NEXT:    }
// CHECK-NEXT:    %c2_1 = arith.constant 2 : index
// CHECK-NEXT:    %t_2 = pypto.tile.load %x[%c2_1, %c0]
// CHECK-NEXT:    %y_2 = pypto.tile.exp %t_2
// CHECK-NEXT:    pypto.tile.store %y_2, %out[%c2_1, %c0]
// CHECK-NEXT:    func.return
func.func @static_remainder(%x: !pypto.tensor<3x64xf32>, %out: !pypto.tensor<3x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c2 stages 1 {
    %t = pypto.tile.load %x[%i, %c0] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<3x64xf32> -> !pypto.tile<1x64xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<1x64xf32, vec>
    pypto.tile.store %y, %out[%i, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<3x64xf32>
    %i_1 = arith.addi %i, %c1 : index
    %t_1 = pypto.tile.load %x[%i_1, %c0] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<3x64xf32> -> !pypto.tile<1x64xf32, vec>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<1x64xf32, vec>
    pypto.tile.store %y_1, %out[%i_1, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<3x64xf32>
  }
  %c2_1 = arith.constant 2 : index
  %t_2 = pypto.tile.load %x[%c2_1, %c0] {pypto.pipeline_membership = #pypto.membership<1:0>} : !pypto.tensor<3x64xf32> -> !pypto.tile<1x64xf32, vec>
  %y_2 = pypto.tile.exp %t_2 {pypto.pipeline_membership = #pypto.membership<1:0>} : !pypto.tile<1x64xf32, vec>
  pypto.tile.store %y_2, %out[%c2_1, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<3x64xf32>
  func.return
}

// -----

// Blocks nested in ops inside a pipeline are reordered too: the then and else
// blocks of an scf.if and the body of an scf.for.

// CHECK-LABEL: func.func @nested_regions
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      scf.if %cond {
// CHECK-NEXT:        %a = pypto.tile.load %x[%c0]
// CHECK-NEXT:        %b = pypto.tile.load %y[%c0]
// CHECK-NEXT:        %ea = pypto.tile.exp %a
// CHECK-NEXT:        %eb = pypto.tile.exp %b
// CHECK-NEXT:        pypto.tile.store %ea, %out[%c0]
// CHECK-NEXT:        pypto.tile.store %eb, %out2[%c0]
// CHECK-NEXT:      } else {
// CHECK-NEXT:        %c = pypto.tile.load %y[%c0]
// CHECK-NEXT:        pypto.tile.store %c, %out[%c0]
// CHECK-NEXT:      }
// CHECK-NEXT:      scf.for %j = %c0 to %c4 step %c1 {
// CHECK-NEXT:        %d = pypto.tile.load %x[%c0]
// CHECK-NEXT:        %nd = pypto.tile.neg %d
// CHECK-NEXT:        pypto.tile.store %nd, %out[%c0]
// CHECK-NEXT:      }
// CHECK-NEXT:    }
func.func @nested_regions(%x: !pypto.tensor<128xf32>, %y: !pypto.tensor<128xf32>, %out: !pypto.tensor<128xf32>, %out2: !pypto.tensor<128xf32>, %cond: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    scf.if %cond {
      %a = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<128xf32, vec>
      %ea = pypto.tile.exp %a : !pypto.tile<128xf32, vec>
      pypto.tile.store %ea, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<128xf32>
      %b = pypto.tile.load %y[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<128xf32, vec>
      %eb = pypto.tile.exp %b : !pypto.tile<128xf32, vec>
      pypto.tile.store %eb, %out2[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<128xf32>
    } else {
      %c = pypto.tile.load %y[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<128xf32, vec>
      pypto.tile.store %c, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<128xf32>
    }
    scf.for %j = %c0 to %c4 step %c1 {
      %d = pypto.tile.load %x[%c0] : !pypto.tensor<128xf32> -> !pypto.tile<128xf32, vec>
      %nd = pypto.tile.neg %d : !pypto.tile<128xf32, vec>
      pypto.tile.store %nd, %out[%c0] : !pypto.tile<128xf32, vec>, !pypto.tensor<128xf32>
    }
  }
  func.return
}

// -----

// A nested pipeline: its body is reordered with its own policy (here stores
// stay next to their compute), the outer body with the outer default policy,
// where the inner loop is compute (stores sink below it). Both loops become
// scf.for.

// CHECK-LABEL: func.func @nested_pipelines
// CHECK:         scf.for %i = %c0 to %c4 step %c1 {
// CHECK-NEXT:      %a = pypto.tile.load %x[%c0, %c0]
// CHECK-NEXT:      %ea = pypto.tile.exp %a
// CHECK-NEXT:      scf.for %j = %c0 to %c4 step %c1 {
// CHECK-NEXT:        %b = pypto.tile.load %x[%c1, %c0]
// CHECK-NEXT:        %c = pypto.tile.load %x[%c2, %c0]
// CHECK-NEXT:        %eb = pypto.tile.exp %b
// CHECK-NEXT:        pypto.tile.store %eb, %out[%c1, %c0]
// CHECK-NEXT:        %ec = pypto.tile.exp %c
// CHECK-NEXT:        pypto.tile.store %ec, %out[%c2, %c0]
// CHECK-NEXT:      }
// CHECK-NEXT:      pypto.tile.store %ea, %out[%c0, %c0]
// CHECK-NEXT:    }
func.func @nested_pipelines(%x: !pypto.tensor<4x64xf32>, %out: !pypto.tensor<4x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  pypto.pipeline %i = %c0 to %c4 step %c1 stages 1 {
    %a = pypto.tile.load %x[%c0, %c0] : !pypto.tensor<4x64xf32> -> !pypto.tile<1x64xf32, vec>
    %ea = pypto.tile.exp %a : !pypto.tile<1x64xf32, vec>
    pypto.tile.store %ea, %out[%c0, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<4x64xf32>
    pypto.pipeline %j = %c0 to %c4 step %c1 stages 1 overlap_stores = false {
      %b = pypto.tile.load %x[%c1, %c0] : !pypto.tensor<4x64xf32> -> !pypto.tile<1x64xf32, vec>
      %eb = pypto.tile.exp %b : !pypto.tile<1x64xf32, vec>
      pypto.tile.store %eb, %out[%c1, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<4x64xf32>
      %c = pypto.tile.load %x[%c2, %c0] : !pypto.tensor<4x64xf32> -> !pypto.tile<1x64xf32, vec>
      %ec = pypto.tile.exp %c : !pypto.tile<1x64xf32, vec>
      pypto.tile.store %ec, %out[%c2, %c0] : !pypto.tile<1x64xf32, vec>, !pypto.tensor<4x64xf32>
    }
  }
  func.return
}
