"""
The vocabulary of the generated kernels (`bench.kernels.strategies.kernels()`): the
tensor and tile types, the op names drawn from, the cross-core channels, and
`FEATURES`, every feature a kernel can report.
"""

ROWS = 1024
"""Rows of every 2-D tensor: room for a window per iteration of nested loops."""
COLS = 8
TILE_ROWS = 4
"""E, the row extent of every window: offsets are built from multiples of it."""
TILE_COLS = COLS
VEC_TENSOR = f"!pypto.tensor<{ROWS}x{COLS}xf32>"
VEC_TILE = f"!pypto.tile<{TILE_ROWS}x{TILE_COLS}xf32, vec>"
BF16_TILE = f"!pypto.tile<{TILE_ROWS}x{TILE_COLS}xbf16, vec>"
ROW_TILE = f"!pypto.tile<{TILE_ROWS}x1xf32, vec>"
MM_K = 8
MM_N = COLS
A_TENSOR = f"!pypto.tensor<{ROWS}x{MM_K}xbf16>"
B_TENSOR = f"!pypto.tensor<{MM_K}x{MM_N}xbf16>"
C_TENSOR = f"!pypto.tensor<{ROWS}x{MM_N}xf32>"
A_MAT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, mat>"
B_MAT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, mat>"
A_LEFT = f"!pypto.tile<{TILE_ROWS}x{MM_K}xbf16, left>"
B_RIGHT = f"!pypto.tile<{MM_K}x{MM_N}xbf16, right>"
ACC_TILE = f"!pypto.tile<{TILE_ROWS}x{MM_N}xf32, acc>"
F32 = "f32"
INDEX = "index"

VEC_TENSORS = ("x", "y", "z")
"""The f32 tensors every kernel takes; `x` is also updated in place."""
TENSOR_PARAMS = (
    *(f"%{name}: {VEC_TENSOR}" for name in VEC_TENSORS),
    f"%a: {A_TENSOR}",
    f"%b: {B_TENSOR}",
    f"%c: {C_TENSOR}",
)

BINARY_OPS = ("add", "sub", "mul", "max", "min", "div")
SCALAR_OPS = ("adds", "subs", "muls", "maxs", "mins", "divs")
UNARY_OPS = ("neg", "abs", "exp", "relu", "sqrt", "rsqrt", "recip")
ROW_OPS = ("row_sum", "row_max")
ROW_EXPAND_OPS = (
    "row_expand_add",
    "row_expand_sub",
    "row_expand_mul",
    "row_expand_div",
)
FLOAT_CONSTANTS = (0.5, -1.25, 2.0, 3.0, -0.75)

CHANNELS = {
    "aic_to_aiv": ("tpush_to_aiv", "tpop_from_aic"),
    "aiv_to_aic": ("tpush_to_aic", "tpop_from_aiv"),
}
"""Per cross-core channel: the op that pushes to it and the op that pops from it."""

FEATURES = frozenset(
    {
        *(f"stages {stages}" for stages in range(1, 9)),
        *(f"step {step}" for step in (1, 2, 3)),
        "static bounds",
        "dynamic lower bound",
        "dynamic upper bound",
        "bounds from an outer loop",
        "empty range",
        "ub < lb, static",
        "ub < lb, dynamic",
        "trip < stages",
        "trip a multiple of stages",
        "trip not a multiple of stages",
        "index iter_arg",
        "f32 iter_arg",
        "vector tile iter_arg",
        "matmul accumulator iter_arg",
        "nested pipeline",
        "scf.if",
        "store in scf.if",
        "in-place, same window",
        "in-place, overlapping window",
        "in-place, overlap across iterations",
        "in-place, disjoint across iterations",
        "load after an in-place store",
        "tile math",
        "tile-scalar math",
        "unary math",
        "cast",
        "row op",
        "row op scratch",
        "tile.read",
        "tile.write",
        "matmul",
        "matmul_acc",
        "push aic_to_aiv",
        "push aiv_to_aic",
        "pop aic_to_aiv",
        "pop aiv_to_aic",
        "pop of an older tile",
        "tile left in a channel",
        "overlap_stores = false",
        "double_buffer_acc = true",
    }
)
"""Every feature `kernels()` can report; each one appears in a modest sample."""
