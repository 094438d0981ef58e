// `pypto-report --strategies`: each pipeline under the three strategies of
// passes.schedule.defaults.STRATEGIES (each followed by canonicalize-io-order)
// side by side: examples/add_one.mlir (8 iterations, stages 4), and the same
// kernel with a dynamic trip count (this file), with and without --trip.

// RUN: pypto-report %examples/add_one.mlir --strategies | filecheck %s --check-prefix=STATIC
// RUN: pypto-report %s --strategies --trip 10 | filecheck %s --check-prefix=TRIP
// RUN: pypto-report %s --strategies | filecheck %s --check-prefix=DYNAMIC
// RUN: pypto-report %examples/row_softmax.mlir --strategies | filecheck %s --check-prefix=DECLINED

// Static: 2 iterations of 4 copies, no remainder; slots keep one body, the
// load in 4 slots (4 x 512 bytes) and one buffer of %y.
// STATIC:      strategies: @add_one: pypto.pipeline at {{.*}}add_one.mlir:6:3, stages 4
// STATIC-NEXT:   cycles per original iteration  cascade   loop  slots
// STATIC-NEXT:   ops emitted                         29     29     11
// STATIC-NEXT:   modelled time                     72.0   72.0  114.0
// STATIC-NEXT:   bound                             72.0   72.0   72.0
// STATIC-NEXT:   whole loop (8 iterations)        705.0  705.0  988.0
// STATIC-NEXT:   peak vec bytes (of 196608)        4096   4096   2560
// STATIC-EMPTY:

// Dynamic, 10 iterations: 2 after the main loop, in the cascade's branch of
// 2 copies, or 2 iterations of the remainder loop; none for slots.
// TRIP:      strategies: @add_one: pypto.pipeline at {{.*}}strategies.mlir:{{[0-9]+}}:3, stages 4
// TRIP-NEXT:   cycles per original iteration  cascade    loop   slots
// TRIP-NEXT:   ops emitted                         78      37      11
// TRIP-NEXT:   modelled time                     72.0    72.0   114.0
// TRIP-NEXT:   bound                             72.0    72.0    72.0
// TRIP-NEXT:   whole loop (10 iterations)       965.0  1007.0  1216.0
// TRIP-NEXT:   peak vec bytes (of 196608)        4096    4096    2560
// TRIP-EMPTY:

// DYNAMIC:      strategies: @add_one: pypto.pipeline at {{.*}}strategies.mlir:{{[0-9]+}}:3, stages 4
// DYNAMIC:        whole loop (cycles)                  -     -      -
// DYNAMIC-NEXT:   peak vec bytes (of 196608)        4096  4096   2560
// DYNAMIC-NEXT:   note: whole loop: dynamic trip count: give it with --trip N (the pass: trip=N)

// A loop lower-pipeline-to-slots declines is replicated, with the cascade.
// DECLINED:      strategies: @row_softmax: pypto.pipeline at {{.*}}row_softmax.mlir:7:3, stages 2
// DECLINED-NEXT:   cycles per original iteration  cascade    loop   slots
// DECLINED-NEXT:   ops emitted                         17      17      17
// DECLINED-NEXT:   modelled time                    160.5   160.5   160.5
// DECLINED:        slots: declined by lower-pipeline-to-slots, gate step: the step is not the constant 1; replicated

func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  pypto.pipeline %i = %c0 to %n step %c1 stages 4 {
    %c128 = arith.constant 128 : index
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %one = arith.constant 1.0 : f32
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
