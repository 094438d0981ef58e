// Ops the passes create take the location of the pipeline they lower; the
// copies keep their own; the scf.for that replaces a pipeline keeps its
// location (issue 10).

// RUN: xdsl-opt --print-debuginfo -p lower-pipeline-loops %s | filecheck %s
// RUN: xdsl-opt --print-debuginfo -p lower-pipeline-loops,canonicalize-io-order %s | filecheck %s --check-prefix=BOTH

func.func @k(%x: !pypto.tensor<1024xf32>, %n: index) {
  %c0 = arith.constant 0 : index loc("k.py":2:3)
  %c1 = arith.constant 1 : index loc("k.py":3:3)
  pypto.pipeline %i = %c0 to %n step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec> loc("k.py":5:7)
    pypto.tile.store %t, %x[%i] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32> loc("k.py":6:7)
  } loc("k.py":4:5)
  func.return
}

// CHECK:      %unroll_start = arith.minsi %c0, %n : index loc("k.py":4:5)
// CHECK:      %c2 = arith.constant 2 : index loc("k.py":4:5)
// CHECK:      %unroll_main_end = arith.addi %unroll_group_limit, %unroll_tail : index loc("k.py":4:5)
// CHECK:      pypto.pipeline %i = %c0 to %unroll_main_end step %c2 stages 1 {
// CHECK-NEXT:   %t = pypto.tile.load {{.*}} loc("k.py":5:7)
// CHECK-NEXT:   pypto.tile.store {{.*}} loc("k.py":6:7)
// CHECK-NEXT:   %i_1 = arith.addi %i, %c1 : index loc("k.py":4:5)
// CHECK-NEXT:   %t_1 = pypto.tile.load {{.*}} loc("k.py":5:7)
// CHECK-NEXT:   pypto.tile.store {{.*}} loc("k.py":6:7)
// CHECK-NEXT: } loc("k.py":4:5)
// CHECK:      %unroll_rem_eq1 = arith.cmpi eq, %unroll_rem, %c1 : index loc("k.py":4:5)
// CHECK-NEXT: scf.if %unroll_rem_eq1 {
// CHECK-NEXT:   %t_2 = pypto.tile.load {{.*}} loc("k.py":5:7)
// CHECK-NEXT:   pypto.tile.store {{.*}} loc("k.py":6:7)
// CHECK-NEXT: } loc("k.py":4:5)

// BOTH:       scf.for %i = %c0 to %unroll_main_end step %c2 {
// BOTH:       } loc("k.py":4:5)
// BOTH:       scf.if %unroll_rem_eq1 {
// BOTH:       } loc("k.py":4:5)
