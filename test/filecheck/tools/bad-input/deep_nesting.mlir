// Nesting deeper than xDSL's recursive parser can go (200 scf.for) is a
// located diagnostic, not a RecursionError; exit code 1, no traceback. A
// nesting it can parse (100) goes through both passes, printing, and the
// interpreter.

// RUN: python3 -c "v = chr(37); n = 200; print('func.func @f() {', v + 'c0 = arith.constant 0 : index', v + 'c1 = arith.constant 1 : index', *[f'scf.for {v}i{k} = {v}c0 to {v}c1 step {v}c1 {{' for k in range(n)], *['}'] * n, 'func.return', '}', sep=chr(10))" > %t.mlir
// RUN: not pypto-opt %t.mlir 2>&1 | filecheck %s -DFILE=%t.mlir
// RUN: not pypto-run %t.mlir 2>&1 | filecheck %s -DFILE=%t.mlir

// RUN: python3 -c "v = chr(37); n = 100; print('func.func @f() {', v + 'c0 = arith.constant 0 : index', v + 'c1 = arith.constant 1 : index', *[f'scf.for {v}i{k} = {v}c0 to {v}c1 step {v}c1 {{' for k in range(n)], *['}'] * n, 'func.return', '}', sep=chr(10))" > %t.100.mlir
// RUN: pypto-opt %t.100.mlir -p lower-pipeline-loops,canonicalize-io-order 2>&1 | filecheck %s --check-prefix=PARSEABLE
// RUN: pypto-run %t.100.mlir --passes lower-pipeline-loops,canonicalize-io-order 2>&1 | filecheck %s --check-prefix=RUNNABLE

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:{{[0-9]+}}:{{[0-9]+}}: error: operations are nested too deeply to parse
// CHECK-NOT:  Traceback

// PARSEABLE-COUNT-100: scf.for
// PARSEABLE-NOT:       Traceback

// RUNNABLE:     @f: seed 0
// RUNNABLE-NEXT: after --passes 'lower-pipeline-loops,canonicalize-io-order': all 0 outputs bit-identical
