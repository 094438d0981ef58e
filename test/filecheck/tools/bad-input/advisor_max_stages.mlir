// The stages advisor lowers a copy of the kernel for each stages from 1 to
// --max-stages, work that grows as the square of the number (N = 200 took
// 43 s): more than 64 is an error line, no run.

// RUN: not pypto-report %s --suggest-stages --max-stages 65 2>&1 | filecheck %s
// RUN: pypto-report %s --suggest-stages --max-stages 64 | filecheck %s --check-prefix=LIMIT

func.func @f(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c3 step %c1 stages 2 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK:      pypto-report: error: --max-stages: the advisor tries 1 to 64 stages (its work grows as the square of the largest), got 65
// CHECK-NOT:  Traceback

// The loop runs 3 times: no more stages are tried.
// LIMIT:      stages advisor: @f
// LIMIT:        {{^ +3 }}
// LIMIT-NOT:    {{^ +4 }}
// LIMIT:        suggestion:
