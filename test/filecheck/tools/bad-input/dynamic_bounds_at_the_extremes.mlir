// Loops whose bounds are at the ends of the index range keep their results
// under lower-pipeline-loops. The dynamic lowering once computed `ub - lb`,
// which wraps: from lb = 2^63-1 to -2^63 (no iteration) it ran one; from
// lb = 1 (no iteration) its main loop ran about 4.6e18 (here: out of the
// iteration budget); from -2^63 to 2^63-1 by 2^62-1 (5 iterations) it ran
// none. Each run compares the results (the iteration count and the last
// index) before and after the pass; `test_index_extremes.py` runs many more
// bounds, steps and stages, and checks that no emitted op overflows.

// RUN: pypto-run %s --entry dynamic_lb --index lb=9223372036854775807 --passes lower-pipeline-loops | filecheck %s --check-prefix=NONE
// RUN: pypto-run %s --entry dynamic_lb --index lb=1 --passes lower-pipeline-loops | filecheck %s --check-prefix=NONE
// RUN: pypto-run %s --entry dynamic_ub --index ub=9223372036854775807 --passes lower-pipeline-loops | filecheck %s --check-prefix=FIVE
// RUN: pypto-run %s --entry static --passes lower-pipeline-loops | filecheck %s --check-prefix=FIVE

func.func @dynamic_lb(%lb: index) -> (index, index) {
  %ub = arith.constant -9223372036854775808 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count, %last = pypto.pipeline %i = %lb to %ub step %c1 stages 2 iter_args(%n = %c0, %l = %c0) -> (index, index) {
    %next = arith.addi %n, %c1 : index
    pypto.yield %next, %i : index, index
  }
  func.return %count, %last : index, index
}

// NONE:      result#0  i64 0
// NONE-NEXT: result#1  i64 0
// NONE-NEXT: after --passes 'lower-pipeline-loops': all 2 outputs bit-identical

func.func @dynamic_ub(%ub: index) -> (index, index) {
  %lb = arith.constant -9223372036854775808 : index
  %step = arith.constant 4611686018427387903 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count, %last = pypto.pipeline %i = %lb to %ub step %step stages 2 iter_args(%n = %c0, %l = %c0) -> (index, index) {
    %next = arith.addi %n, %c1 : index
    pypto.yield %next, %i : index, index
  }
  func.return %count, %last : index, index
}

// FIVE:      result#0  i64 5
// FIVE-NEXT: result#1  i64 9223372036854775804
// FIVE-NEXT: after --passes 'lower-pipeline-loops': all 2 outputs bit-identical

func.func @static() -> (index, index) {
  %lb = arith.constant -9223372036854775808 : index
  %ub = arith.constant 9223372036854775807 : index
  %step = arith.constant 4611686018427387903 : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %count, %last = pypto.pipeline %i = %lb to %ub step %step stages 2 iter_args(%n = %c0, %l = %c0) -> (index, index) {
    %next = arith.addi %n, %c1 : index
    pypto.yield %next, %i : index, index
  }
  func.return %count, %last : index, index
}
