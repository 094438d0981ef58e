// A generic op with the wrong number of operands (here the pipeline loop,
// with two of its three bounds) is a located diagnostic, also when passes
// follow; exit code 1, no traceback.

// RUN: not pypto-opt %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-run %s 2>&1 | filecheck %s -DFILE=%s
// RUN: not pypto-opt %s -p lower-pipeline-loops,canonicalize-io-order 2>&1 | filecheck %s -DFILE=%s

"func.func"() <{sym_name = "f", function_type = () -> ()}> ({
  %c0 = "arith.constant"() <{value = 0 : index}> : () -> index
  "pypto.pipeline"(%c0, %c0) <{stages = 4 : i64}> ({
  ^bb0(%i: index):
    "pypto.yield"() : () -> ()
  }) : (index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()

// CHECK-NOT:  Traceback
// CHECK:      {{^}}[[FILE]]:11:3: error: 'pypto.pipeline' op Expected at least 3 operands, but got 2
// CHECK-NEXT: {{^}}  "pypto.pipeline"(%c0, %c0) <{stages = 4 : i64}> ({
// CHECK-NOT:  Traceback
