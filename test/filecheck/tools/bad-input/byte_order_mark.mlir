// This file starts with a UTF-8 byte order mark, which pypto-opt and
// pypto-run skip, as Python does for a .py file (they once rejected it:
// "unexpected character"); the PyPTO program below gets one too. Stock
// xdsl-opt, which reads .mlir files with xDSL's own frontend, still rejects it.

// RUN: pypto-opt %s | filecheck %s
// RUN: pypto-run %s | filecheck %s --check-prefix=EXEC
// RUN: printf '\357\273\277' > %t.py
// RUN: cat %examples/pypto/add_one.py >> %t.py
// RUN: pypto-run %t.py | filecheck %s --check-prefix=PYTHON
// RUN: xdsl-opt -f pypto %t.py | filecheck %s --check-prefix=FRONTEND

func.func @f(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %t = pypto.tile.load %x[%c0] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
  pypto.tile.store %t, %x[%c0] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  func.return
}

// CHECK:      func.func @f(%x: !pypto.tensor<16xf32>) {
// EXEC:       @f: seed 0
// PYTHON:     @add_one: seed 0
// FRONTEND:   func.func @add_one(
