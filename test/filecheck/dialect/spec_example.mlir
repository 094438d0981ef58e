// The example of the IR contract (ir.md), verbatim: it parses, verifies and
// prints back in the same custom syntax, also through the generic form.

// RUN: xdsl-opt %s | filecheck %s
// RUN: xdsl-opt %s | %roundtrip-generic | filecheck %s
// RUN: xdsl-opt %s > %t && xdsl-opt %s | %roundtrip-generic | diff %t -

func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
    %c128 = arith.constant 128 : index
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %one = arith.constant 1.0 : f32
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// CHECK:      func.func @add_one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
// CHECK-NEXT:   %c0 = arith.constant 0 : index
// CHECK-NEXT:   %c1 = arith.constant 1 : index
// CHECK-NEXT:   %c8 = arith.constant 8 : index
// CHECK-NEXT:   pypto.pipeline %i = %c0 to %c8 step %c1 stages 4 {
// CHECK-NEXT:     %c128 = arith.constant 128 : index
// CHECK-NEXT:     %off = arith.muli %i, %c128 : index
// CHECK-NEXT:     %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
// CHECK-NEXT:     %one = arith.constant 1.000000e+00 : f32
// CHECK-NEXT:     %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
// CHECK-NEXT:     pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
// CHECK-NEXT:   }
// CHECK-NEXT:   func.return
// CHECK-NEXT: }
