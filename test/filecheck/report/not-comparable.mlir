// A pipeline with a pipeline of dynamic trip count nested in it: before the
// passes the inner loop is costed as one iteration, after them as its main
// loop and costliest remainder, so the report gives no speed-up for the
// outer loop and says why; the inner loop itself compares as usual.

// RUN: pypto-report %s --passes lower-pipeline-loops,canonicalize-io-order --json %t.json | filecheck %s -DFILE=%s
// RUN: python -c "import json, sys; print([l['comparable'] for l in json.load(open(sys.argv[1]))['loops']])" %t.json | filecheck %s --check-prefix=JSON

func.func @f(%x: !pypto.tensor<4096xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %o = %c0 to %c4 step %c1 stages 2 {
    pypto.pipeline %i = %c0 to %n step %c1 stages 4 {
      %off = arith.muli %i, %c64 : index
      %t = pypto.tile.load %x[%off] : !pypto.tensor<4096xf32> -> !pypto.tile<64xf32, vec>
      pypto.tile.store %t, %x[%off] : !pypto.tile<64xf32, vec>, !pypto.tensor<4096xf32>
    }
  }
  func.return
}

// CHECK:      @f: pypto.pipeline at [[FILE]]:14:3, stages 2
// CHECK:        speed-up {{ +}}-{{$}}
// CHECK-NEXT:   note: before and after are not comparable: a pipeline nested in it has a dynamic trip count, costed as one iteration before the passes and as its main loop and costliest remainder after them (no speed-up given)
// CHECK:      @f: pypto.pipeline at [[FILE]]:15:5, stages 4
// CHECK:        speed-up {{ +}}2.47x
// CHECK-NOT:    not comparable

// JSON:       [False, True]
