// The PyPTO target keeps a NaN's sign (`-float("nan")`) so that the round
// trip is bit-identical (it once wrote float("nan") for 0xFFC00000), and
// refuses a NaN with a payload, which no PyPTO literal writes.

// RUN: not pypto-opt %s --split-input-file -t pypto | filecheck %s --check-prefix=PY
// The export of the second chunk fails, so the frontend then reads an empty
// chunk, which is an error (no @pl.program): hence the second `not`.
// RUN: not pypto-opt %s --split-input-file -t pypto | not pypto-opt -f pypto --split-input-file | filecheck %s --check-prefix=BACK
// RUN: not pypto-opt %s --split-input-file -t pypto 2>&1 >/dev/null | filecheck %s --check-prefix=PAYLOAD

func.func @signs(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  %negative = arith.constant 0xFFC00000 : f32
  %positive = arith.constant 0x7FC00000 : f32
  %a = pypto.tile.adds %t, %negative : !pypto.tile<8xf32, vec>, f32
  %b = pypto.tile.adds %a, %positive : !pypto.tile<8xf32, vec>, f32
  pypto.tile.store %b, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.return
}

// PY:        pl.tile.adds(t, -float("nan"))
// PY:        pl.tile.adds(a, float("nan"))

// BACK:      arith.constant 0xffc00000 : f32
// BACK:      arith.constant 0x7fc00000 : f32

// -----

func.func @payload(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  %nan = arith.constant 0x7FC00001 : f32
  %a = pypto.tile.adds %t, %nan : !pypto.tile<8xf32, vec>, f32
  pypto.tile.store %a, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.return
}

// PAYLOAD:      nan_with_sign_or_payload.mlir:[[# @LINE - 6]]:3: error: 'arith.constant' op has no PyPTO form: a NaN with a payload (PyPTO writes only the quiet NaNs float("nan") and -float("nan"))
// PAYLOAD-NOT:  Traceback
