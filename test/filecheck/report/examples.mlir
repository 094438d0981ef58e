// The report of every bundled example before and after both passes: the
// modelled gain of the passes and the efficiency (default cost table), per
// iteration and over the whole loop (docs/report.md, worked examples,
// derives each figure by hand).

// RUN: pypto-report %examples/add_one.mlir --passes lower-pipeline-loops,canonicalize-io-order | filecheck %s --check-prefix=ADD
// RUN: pypto-report %examples/matmul_k_loop.mlir --passes lower-pipeline-loops,canonicalize-io-order | filecheck %s --check-prefix=MATMUL
// RUN: pypto-report %examples/row_softmax.mlir --passes lower-pipeline-loops,canonicalize-io-order | filecheck %s --check-prefix=SOFTMAX

// ADD:      @add_one: pypto.pipeline at {{.*}}add_one.mlir:6:3, stages 4
// ADD-NEXT:   cycles per original iteration  before   after
// ADD-NEXT:   busy SCALAR                       3.0     3.8
// ADD-NEXT:   busy MTE2                        72.0    72.0
// ADD-NEXT:   busy VECTOR                      10.0    10.0
// ADD-NEXT:   busy MTE3                        72.0    72.0
// ADD-NEXT:   bound (busiest engine)           72.0    72.0
// ADD-NEXT:   bottleneck                       MTE2    MTE2
// ADD-NEXT:   modelled time                   114.0    72.0
// ADD-NEXT:   efficiency (bound / time)       63.2%  100.0%
// ADD-NEXT:   whole loop (8 iterations)       986.0   705.0
// ADD-NEXT:   whole-loop efficiency           58.4%   81.7%
// ADD-NEXT:   speed-up                                1.58x
// ADD-NEXT:   peak vec bytes (of 196608)       1024    4096
// ADD-EMPTY:

// MATMUL:      @matmul_k_loop: pypto.pipeline at {{.*}}matmul_k_loop.mlir:9:3, stages 2
// MATMUL:        busy MTE2                       672.0   672.0
// MATMUL-NEXT:   busy MTE1                       168.0   168.0
// MATMUL-NEXT:   busy CUBE                        80.0    80.0
// MATMUL-NEXT:   bound (busiest engine)          672.0   672.0
// MATMUL-NEXT:   bottleneck                       MTE2    MTE2
// MATMUL-NEXT:   modelled time                   752.0   672.0
// MATMUL-NEXT:   efficiency (bound / time)       89.4%  100.0%
// MATMUL-NEXT:   whole loop (8 iterations)      6192.0  5633.0
// MATMUL-NEXT:   whole-loop efficiency           86.8%   95.4%
// MATMUL-NEXT:   speed-up                                1.12x
// MATMUL-NEXT:   peak mat bytes (of 524288)      34816   69632
// MATMUL-NEXT:   peak left bytes (of 65536)       2048    4096
// MATMUL-NEXT:   peak right bytes (of 65536)     32768   65536
// MATMUL-NEXT:   peak acc bytes (of 131072)      16384   16384

// SOFTMAX:      @row_softmax: pypto.pipeline at {{.*}}row_softmax.mlir:7:3, stages 2
// SOFTMAX:        modelled time                   208.0  160.5
// SOFTMAX-NEXT:   efficiency (bound / time)       61.5%  79.8%
// SOFTMAX-NEXT:   whole loop (8 iterations)      1864.0 1500.0
// SOFTMAX-NEXT:   whole-loop efficiency           54.9%  68.3%
// SOFTMAX-NEXT:   speed-up                               1.30x
