// out[i] = x[i] + 1 over 1024 elements, in 128-element tiles, 4-stage pipeline.
func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %c128 = arith.constant 128 : index
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %one = arith.constant 1.0 : f32
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
