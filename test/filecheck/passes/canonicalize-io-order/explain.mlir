// RUN: xdsl-opt -p 'canonicalize-io-order{explain=true}' %s 2>&1 | filecheck %s
// RUN: xdsl-opt -p 'canonicalize-io-order{explain=true}' %s 2>/dev/null | filecheck %s --check-prefix=IR

// explain=true prints, per block, each op the pass moved and each op that a
// dependence held below an op of lower priority, with the dependence that
// released it last (old position -> new position), on stderr, before the
// IR is printed. Values are named as the printed IR names them: the
// captures below are the names of the IR that follows.
// The IR is the same as without the option.

// CHECK:      canonicalize-io-order: a block of pypto.pipeline in @explained:
// CHECK-NEXT:   #4 -> #1 arith.addi ([[I1:%i_[0-9]+]]): moved
// CHECK-NEXT:   #5 -> #2 arith.muli ([[OFF1:%off_[0-9]+]]): moved
// CHECK-NEXT:   #6 -> #4 pypto.tile.load ([[T1:%t_[0-9]+]]): moved
// CHECK-NEXT:   #9 -> #7 pypto.tile.load ([[U:%u]]): moved, held by #3 pypto.tile.store: read after write of %x
// CHECK-NEXT:   #10 -> #10 func.call: held by #8 pypto.tile.store: unknown memory effects
// CHECK-NEXT:   #11 -> #11 pypto.tile.load ([[V:%v]]): held by #10 func.call: unknown memory effects
// CHECK-NEXT:   #12 -> #12 test.pureop: held by #11 pypto.tile.load ([[V]]): uses [[V]]
// CHECK-NOT:  canonicalize-io-order
// CHECK:      scf.for
// CHECK-NEXT:   %off = arith.muli %i, %c128 : index
// CHECK-NEXT:   [[I1]] = arith.addi %i, %c1 : index
// CHECK-NEXT:   [[OFF1]] = arith.muli [[I1]], %c128 : index
// CHECK-NEXT:   %t = pypto.tile.load %x[%off]
// CHECK-NEXT:   [[T1]] = pypto.tile.load %x{{\[}}[[OFF1]]{{\]}}
// CHECK:        [[U]] = pypto.tile.load %x[%off]
// CHECK:        [[V]] = pypto.tile.load %x[%off]

// IR:      scf.for
// IR-NEXT:   %off = arith.muli %i, %c128 : index
// IR-NEXT:   %i_1 = arith.addi %i, %c1 : index
// IR-NEXT:   %off_1 = arith.muli %i_1, %c128 : index
// IR-NEXT:   %t = pypto.tile.load %x[%off]
// IR-NEXT:   %t_1 = pypto.tile.load %x[%off_1]
// IR-NEXT:   %y = pypto.tile.exp %t
// IR-NEXT:   pypto.tile.store %y, %x[%off]
// IR-NEXT:   %u = pypto.tile.load %x[%off]
// IR-NEXT:   %y_1 = pypto.tile.exp %t_1
// IR-NEXT:   pypto.tile.store %y_1, %x[%off_1]
// IR-NEXT:   func.call @opaque()
// IR-NEXT:   %v = pypto.tile.load %x[%off]
// IR-NEXT:   "test.pureop"(%u, %v)
// IR-NEXT: }
func.func private @opaque() -> ()

func.func @explained(%x: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  pypto.pipeline %i = %c0 to %c8 step %c2 stages 1 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.exp %t {pypto.pipeline_membership = #pypto.membership<0:0>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %y, %x[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
    %i_1 = arith.addi %i, %c1 : index
    %off_1 = arith.muli %i_1, %c128 : index
    %t_1 = pypto.tile.load %x[%off_1] {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y_1 = pypto.tile.exp %t_1 {pypto.pipeline_membership = #pypto.membership<0:1>} : !pypto.tile<128xf32, vec>
    pypto.tile.store %y_1, %x[%off_1] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
    %u = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    func.call @opaque() : () -> ()
    %v = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    "test.pureop"(%u, %v) : (!pypto.tile<128xf32, vec>, !pypto.tile<128xf32, vec>) -> ()
  }
  func.return
}
