// A use before its definition outside any pipeline is a located verifier
// error of pypto-opt and pypto-run (it once verified, and pypto-run then
// failed with an internal KeyError). xDSL checks no dominance: stock xdsl-opt
// still accepts such input (docs/dialect.md, "Dominance").

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s

func.func @f(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  %y = pypto.tile.adds %t, %one : !pypto.tile<8xf32, vec>, f32
  %one = arith.constant 1.0 : f32
  pypto.tile.store %y, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.return
}

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:12:3: error: 'pypto.tile.adds' op operand #1 (%one) is not defined before its use in a block that encloses it
// CHECK-NEXT: {{^}}  %y = pypto.tile.adds %t, %one : !pypto.tile<8xf32, vec>, f32
// CHECK-NOT:  internal error
