// Row-wise softmax of a 128x64 matrix, 16 rows per tile, 2-stage pipeline:
// out = exp(x - row_max(x)) / row_sum(exp(x - row_max(x))).
func.func @row_softmax(%x: !pypto.tensor<128x64xf32>, %out: !pypto.tensor<128x64xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %row = %c0 to %c128 step %c16 stages 2 {
    %t = pypto.tile.load %x[%row, %c0] : !pypto.tensor<128x64xf32> -> !pypto.tile<16x64xf32, vec>
    %max = pypto.tile.row_max %t : !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
    %shifted = pypto.tile.row_expand_sub %t, %max : !pypto.tile<16x64xf32, vec>, !pypto.tile<16x1xf32, vec>
    %e = pypto.tile.exp %shifted : !pypto.tile<16x64xf32, vec>
    %sum = pypto.tile.row_sum %e : !pypto.tile<16x64xf32, vec> -> !pypto.tile<16x1xf32, vec>
    %y = pypto.tile.row_expand_div %e, %sum : !pypto.tile<16x64xf32, vec>, !pypto.tile<16x1xf32, vec>
    pypto.tile.store %y, %out[%row, %c0] : !pypto.tile<16x64xf32, vec>, !pypto.tensor<128x64xf32>
  }
  func.return
}
