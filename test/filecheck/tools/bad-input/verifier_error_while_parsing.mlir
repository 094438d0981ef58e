// An error the IR verifier raises while the parser builds an attribute is a
// diagnostic in the three tools alike: exit code 1, no internal error.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-report %s 2>&1 | filecheck %s -DFILE=%s

// A pipeline of two blocks, a signedness attribute:
// RUN: printf 'func.func @f() {\n  %%%%c0 = arith.constant 0 : index\n  pypto.pipeline %%%%i = %%%%c0 to %%%%c0 step %%%%c0 stages 1 {\n    cf.br ^bb1\n  ^bb1:\n    pypto.yield\n  }\n  func.return\n}\n' > %t.blocks.mlir
// RUN: not pypto-run %t.blocks.mlir 2>&1 | filecheck %s --check-prefix=BLOCKS
// RUN: not pypto-report %t.blocks.mlir 2>&1 | filecheck %s --check-prefix=BLOCKS
// RUN: printf 'func.func @f() {\n  %%%%a = arith.constant 1 : si8\n  func.return\n}\n' > %t.signed.mlir
// RUN: not pypto-run %t.signed.mlir 2>&1 | filecheck %s --check-prefix=SIGNED
// RUN: not pypto-report %t.signed.mlir 2>&1 | filecheck %s --check-prefix=SIGNED

func.func @f() {
  %a = arith.constant 5 : i1
  func.return
}

// CHECK-NOT: internal error
// CHECK:     {{^}}[[FILE]]: error: Integer value 5 is out of range for type i1 which supports values in the range [-1, 2){{$}}

// BLOCKS-NOT: internal error
// BLOCKS:     blocks.mlir: error: 'pypto.pipeline' does not contain single-block regions
// SIGNED-NOT: internal error
// SIGNED:     signed.mlir: error: Expected attribute #builtin.signedness<signless> but got #builtin.signedness<signed>
