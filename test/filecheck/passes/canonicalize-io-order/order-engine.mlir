// order=engine: scalars first, then per stage its compute and store, with the
// loads (the only ops on MTE2) of stage s + D just before the compute of
// stage s. Here D = 1: a load takes MTE2 as long as the stage's interval.
// `read` stays with its stage, `extract` out of `mat` with its matmul.

// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=engine}' --split-input-file %s | filecheck %s
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=engine costs="%S/Inputs/one-stage-of-vec.json"}' --split-input-file %s | filecheck %s --check-prefix=BUDGET
// RUN: xdsl-opt -p 'lower-pipeline-loops,canonicalize-io-order{order=engine explain=true}' --split-input-file %s 2>&1 >/dev/null | filecheck %s --check-prefix=EXPLAIN

// CHECK-LABEL: func.func @loads_ahead
// CHECK:      scf.for
// CHECK-NEXT:   %off = arith.muli
// CHECK-NEXT:   %i_1 = arith.addi
// CHECK-NEXT:   %off_1 = arith.muli
// CHECK-NEXT:   %i_2 = arith.addi
// CHECK-NEXT:   %off_2 = arith.muli
// CHECK-NEXT:   %i_3 = arith.addi
// CHECK-NEXT:   %off_3 = arith.muli
// CHECK-NEXT:   %t = pypto.tile.load %x[%off]
// CHECK-NEXT:   %t_1 = pypto.tile.load %x[%off_1]
// CHECK-NEXT:   %y = pypto.tile.adds %t
// CHECK-NEXT:   pypto.tile.store %y
// CHECK-NEXT:   %t_2 = pypto.tile.load %x[%off_2]
// CHECK-NEXT:   %y_1 = pypto.tile.adds %t_1
// CHECK-NEXT:   pypto.tile.store %y_1
// CHECK-NEXT:   %t_3 = pypto.tile.load %x[%off_3]
// CHECK-NEXT:   %y_2 = pypto.tile.adds %t_2
// CHECK-NEXT:   pypto.tile.store %y_2
// CHECK-NEXT:   %y_3 = pypto.tile.adds %t_3
// CHECK-NEXT:   pypto.tile.store %y_3
// CHECK-NEXT: }

// With room in vec for one stage's loads only, D = 0: each load stays with
// its stage.

// BUDGET-LABEL: func.func @loads_ahead
// BUDGET:      %t = pypto.tile.load %x[%off]
// BUDGET-NEXT: %y = pypto.tile.adds %t
// BUDGET-NEXT: pypto.tile.store %y
// BUDGET-NEXT: %t_1 = pypto.tile.load %x[%off_1]
// BUDGET-NEXT: %y_1 = pypto.tile.adds %t_1
// BUDGET-NEXT: pypto.tile.store %y_1
func.func @loads_ahead(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// -----

// CHECK-LABEL: func.func @read_with_its_stage
// CHECK:      %t = pypto.tile.load %x
// CHECK-NEXT: %u = pypto.tile.load %z
// CHECK-NEXT: %t_1 = pypto.tile.load %x
// CHECK-NEXT: %u_1 = pypto.tile.load %z
// CHECK-NEXT: %y = pypto.tile.exp %t
// CHECK-NEXT: %e = pypto.tile.read %u
// CHECK-NEXT: %s = arith.addf %acc, %e
// CHECK-NEXT: pypto.tile.store %y
// CHECK-NEXT: %y_1 = pypto.tile.exp %t_1
// CHECK-NEXT: %e_1 = pypto.tile.read %u_1
// CHECK-NEXT: %s_1 = arith.addf %s, %e_1
// CHECK-NEXT: pypto.tile.store %y_1
// CHECK-NEXT: scf.yield %s_1
func.func @read_with_its_stage(%x: !pypto.tensor<64x64xf32>, %z: !pypto.tensor<64x64xf32>, %out: !pypto.tensor<64x64xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f32
  %r = pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 iter_args(%acc = %one) -> (f32) {
    %off = arith.muli %i, %c8 : index
    %t = pypto.tile.load %x[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<8x64xf32, vec>
    %y = pypto.tile.exp %t : !pypto.tile<8x64xf32, vec>
    pypto.tile.store %y, %out[%off, %c0] : !pypto.tile<8x64xf32, vec>, !pypto.tensor<64x64xf32>
    %u = pypto.tile.load %z[%off, %c0] : !pypto.tensor<64x64xf32> -> !pypto.tile<1x64xf32, vec>
    %e = pypto.tile.read %u[%c0, %c0] : !pypto.tile<1x64xf32, vec>
    %s = arith.addf %acc, %e : f32
    pypto.yield %s : f32
  }
  func.return %r : f32
}

// -----

// CHECK-LABEL: func.func @extract_with_its_matmul
// CHECK:      %a_l1 = pypto.tile.load %a
// CHECK-NEXT: %b_l1 = pypto.tile.load %b
// CHECK-NEXT: %a_l1_1 = pypto.tile.load %a
// CHECK-NEXT: %b_l1_1 = pypto.tile.load %b
// CHECK-NEXT: %a_l0 = pypto.tile.extract %a_l1
// CHECK-NEXT: %b_l0 = pypto.tile.move %b_l1
// CHECK-NEXT: %next = pypto.tile.matmul_acc %partial, %a_l0, %b_l0
// CHECK-NEXT: %a_l0_1 = pypto.tile.extract %a_l1_1
// CHECK-NEXT: %b_l0_1 = pypto.tile.move %b_l1_1
// CHECK-NEXT: %next_1 = pypto.tile.matmul_acc %next, %a_l0_1, %b_l0_1
// CHECK-NEXT: scf.yield %next_1
func.func @extract_with_its_matmul(%a: !pypto.tensor<16x512xbf16>, %b: !pypto.tensor<512x256xbf16>, %c: !pypto.tensor<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<16x256xf32, acc>
  %acc = pypto.pipeline %k = %c0 to %c512 step %c64 stages 2 iter_args(%partial = %init) -> (!pypto.tile<16x256xf32, acc>) {
    %a_l1 = pypto.tile.load %a[%c0, %k] : !pypto.tensor<16x512xbf16> -> !pypto.tile<16x64xbf16, mat>
    %b_l1 = pypto.tile.load %b[%k, %c0] : !pypto.tensor<512x256xbf16> -> !pypto.tile<64x256xbf16, mat>
    %a_l0 = pypto.tile.extract %a_l1[%c0, %c0] : !pypto.tile<16x64xbf16, mat> -> !pypto.tile<16x64xbf16, left>
    %b_l0 = pypto.tile.move %b_l1 : !pypto.tile<64x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
    %next = pypto.tile.matmul_acc %partial, %a_l0, %b_l0 : !pypto.tile<16x256xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>
    pypto.yield %next : !pypto.tile<16x256xf32, acc>
  }
  pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<16x256xf32, acc>, !pypto.tensor<16x256xf32>
  func.return
}

// -----

// Each engine's queue keeps its order: the load of %y in stage 1 waits for
// the store of stage 0 (the windows may overlap), and the load of %z in
// stage 1, though ready, stays behind it on MTE2; explain names the reason.

// CHECK-LABEL: func.func @held_load_keeps_its_place
// CHECK:      %t = pypto.tile.load %y
// CHECK-NEXT: %u = pypto.tile.load %z
// CHECK-NEXT: pypto.tile.store %t, %y
// CHECK-NEXT: %t_1 = pypto.tile.load %y
// CHECK-NEXT: %u_1 = pypto.tile.load %z
// CHECK-NEXT: pypto.tile.store %t_1, %y

// EXPLAIN:      canonicalize-io-order: a block of pypto.pipeline in @held_load_keeps_its_place:
// EXPLAIN:        #8 -> #10 pypto.tile.load (%t_1): moved, held by #3 pypto.tile.store: read after write of %y
// EXPLAIN-NEXT:   #12 -> #11 pypto.tile.load (%u_1): held by #8 pypto.tile.load (%t_1): keeps its place on MTE2
func.func @held_load_keeps_its_place(%y: !pypto.tensor<1024x8xf32>, %z: !pypto.tensor<1024x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c20 = arith.constant 20 : index
  pypto.pipeline %i = %c0 to %c20 step %c1 stages 2 {
    %s = arith.muli %i, %c2 : index
    %t = pypto.tile.load %y[%s, %c0] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
    %s2 = arith.muli %i, %c4 : index
    pypto.tile.store %t, %y[%s2, %c0] : !pypto.tile<4x8xf32, vec>, !pypto.tensor<1024x8xf32>
    %s3 = arith.muli %i, %c8 : index
    %u = pypto.tile.load %z[%s3, %c0] : !pypto.tensor<1024x8xf32> -> !pypto.tile<4x8xf32, vec>
  }
  func.return
}
