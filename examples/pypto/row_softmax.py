# pypto.program: RowSoftmax
# Row-wise softmax of a 128x64 matrix, 16 rows per tile, 2-stage pipeline:
# out = exp(x - row_max(x)) / row_sum(exp(x - row_max(x))).
# examples/row_softmax.mlir as a PyPTO program, with the output tensor
# carried through the loop as PyPTO prints it, the scratch tile PyPTO's row
# reductions need (a pl.tile.create, which the .mlir leaves to the target),
# and the column offset 0 named before the loop, as the .mlir has it.
import pypto.language as pl


@pl.program
class RowSoftmax:
    @pl.function
    def row_softmax(
        self,
        x: pl.Tensor[[128, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ):
        zero: pl.Scalar[pl.INDEX] = 0
        for row, (acc,) in pl.pipeline(0, 128, 16, init_values=(out,), stage=2):
            t: pl.Tile[[16, 64], pl.FP32] = pl.tile.load(
                x, [row, zero], [16, 64], [16, 64], target_memory=pl.Mem.Vec
            )
            max_tmp: pl.Tile[[16, 64], pl.FP32] = pl.tile.create(
                [16, 64], dtype=pl.FP32, target_memory=pl.Mem.Vec
            )
            max: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_max(t, max_tmp)
            shifted: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_sub(t, max)
            e: pl.Tile[[16, 64], pl.FP32] = pl.tile.exp(shifted)
            sum: pl.Tile[[16, 1], pl.FP32] = pl.tile.row_sum(e, max_tmp)
            y: pl.Tile[[16, 64], pl.FP32] = pl.tile.row_expand_div(e, sum)
            updated: pl.Tensor[[128, 64], pl.FP32] = pl.tile.store(y, [row, zero], acc)
            pl.yield_(updated)
