// A function of several blocks (as convert-scf-to-cf leaves it): the
// allocations are declared at the top of the entry block, which dominates
// every block; the results stay the same. The three tools accept it, as they
// accept it for lower-pipeline-loops.

// RUN: pypto-opt %s -p lower-pipeline-to-slots | filecheck %s
// RUN: pypto-run %s --passes lower-pipeline-to-slots | filecheck %s --check-prefix=SAME
// RUN: pypto-report %s --strategies | filecheck %s --check-prefix=REPORT

func.func @f(%x: !pypto.tensor<16xf32>, %c: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %off = arith.muli %i, %c2 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  cf.br ^bb2
^bb2:
  func.return
}

// CHECK:       func.func @f
// CHECK-NEXT:    %pipe_t = pypto.alloc "pipe_t" slots 2 : !pypto.alloc<vec>
// CHECK:         cf.cond_br
// CHECK:       ^bb1:
// CHECK:         scf.for %i
// CHECK:           pypto.bind %t to %pipe_t[%slot]

// SAME:        after --passes 'lower-pipeline-to-slots': all 1 outputs bit-identical

// REPORT:      strategies: @f: pypto.pipeline
// REPORT:        ops emitted
