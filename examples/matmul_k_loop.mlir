// c = a @ b with a: 16x512, b: 512x256 (bf16), accumulated in f32 over K chunks
// of 64: GM -> mat (L1), mat -> left/right (L0A/L0B), matmul_acc into acc (L0C).
func.func @matmul_k_loop(%a: !pypto.tensor<16x512xbf16>, %b: !pypto.tensor<512x256xbf16>, %c: !pypto.tensor<16x256xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c512 = arith.constant 512 : index
  %zero = arith.constant 0.0 : f32
  %init = pypto.tile.full %zero : f32 -> !pypto.tile<16x256xf32, acc>
  %acc = pypto.pipeline %k = %c0 to %c512 step %c64 stages 2 iter_args(%partial = %init) -> (!pypto.tile<16x256xf32, acc>) {
    %a_l1 = pypto.tile.load %a[%c0, %k] : !pypto.tensor<16x512xbf16> -> !pypto.tile<16x64xbf16, mat>
    %b_l1 = pypto.tile.load %b[%k, %c0] : !pypto.tensor<512x256xbf16> -> !pypto.tile<64x256xbf16, mat>
    %a_l0 = pypto.tile.extract %a_l1[%c0, %c0] : !pypto.tile<16x64xbf16, mat> -> !pypto.tile<16x64xbf16, left>
    %b_l0 = pypto.tile.extract %b_l1[%c0, %c0] : !pypto.tile<64x256xbf16, mat> -> !pypto.tile<64x256xbf16, right>
    %next = pypto.tile.matmul_acc %partial, %a_l0, %b_l0 : !pypto.tile<16x256xf32, acc>, !pypto.tile<16x64xbf16, left>, !pypto.tile<64x256xbf16, right>
    pypto.yield %next : !pypto.tile<16x256xf32, acc>
  }
  pypto.tile.store %acc, %c[%c0, %c0] : !pypto.tile<16x256xf32, acc>, !pypto.tensor<16x256xf32>
  func.return
}
