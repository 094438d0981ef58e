# pypto.program: AddOne
# out[i] = x[i] + 1 over 1024 elements, in 128-element tiles, 4-stage
# pipeline: examples/add_one.mlir as a PyPTO program.
import pypto.language as pl


@pl.program
class AddOne:
    @pl.function
    def add_one(self, x: pl.Tensor[[1024], pl.FP32], out: pl.Tensor[[1024], pl.FP32]):
        for i in pl.pipeline(0, 8, 1, stage=4):
            off: pl.Scalar[pl.INDEX] = i * 128
            t: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.load(x, [off], [128])
            y: pl.Tile[[128], pl.FP32, pl.Mem.Vec] = pl.tile.adds(t, 1.0)
            pl.tile.store(y, [off], out)
