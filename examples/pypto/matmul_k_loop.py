# pypto.program: MatmulKLoop
# c = a @ b with a: 16x512, b: 512x256 (bf16), accumulated in f32 over K
# chunks of 64: GM -> mat (L1), mat -> left/right (L0A/L0B), matmul_acc into
# acc (L0C). examples/matmul_k_loop.mlir as a PyPTO program, with the
# accumulator started as PyPTO starts one: pl.tile.full fills Vec only, so the
# first chunk is a pl.tile.matmul before the loop, which runs from the second
# chunk on (bit-identical to the .mlir twin's fill of zeros).
import pypto.language as pl


@pl.program
class MatmulKLoop:
    @pl.function(type=pl.FunctionType.InCore)
    def matmul_k_loop(
        self,
        a: pl.Tensor[[16, 512], pl.BF16],
        b: pl.Tensor[[512, 256], pl.BF16],
        c: pl.InOut[pl.Tensor[[16, 256], pl.FP32]],
    ):
        a_first: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(
            a, [0, 0], [16, 64], target_memory=pl.Mem.Mat
        )
        b_first: pl.Tile[[64, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(
            b, [0, 0], [64, 256], target_memory=pl.Mem.Mat
        )
        a_l0_first: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(
            a_first, 0, 0, [16, 64], target_memory=pl.Mem.Left
        )
        b_l0_first: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(
            b_first, 0, 0, [64, 256], target_memory=pl.Mem.Right
        )
        first: pl.Tile[[16, 256], pl.FP32, pl.Mem.Acc] = pl.tile.matmul(
            a_l0_first, b_l0_first
        )
        for k, (partial,) in pl.pipeline(64, 512, 64, init_values=(first,), stage=2):
            a_l1: pl.Tile[[16, 64], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                a, [0, k], [16, 64], target_memory=pl.Mem.Mat
            )
            b_l1: pl.Tile[[64, 256], pl.BF16, pl.Mem.Mat] = pl.tile.load(
                b, [k, 0], [64, 256], target_memory=pl.Mem.Mat
            )
            a_l0: pl.Tile[[16, 64], pl.BF16, pl.Mem.Left] = pl.tile.extract(
                a_l1, 0, 0, [16, 64], target_memory=pl.Mem.Left
            )
            b_l0: pl.Tile[[64, 256], pl.BF16, pl.Mem.Right] = pl.tile.extract(
                b_l1, 0, 0, [64, 256], target_memory=pl.Mem.Right
            )
            acc = pl.tile.matmul_acc(partial, a_l0, b_l0)
            total = pl.yield_(acc)
        pl.tile.store(total, [0, 0], c)
