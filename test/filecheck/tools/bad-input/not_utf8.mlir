// A byte that is not UTF-8, in a file or on stdin, is one `cannot read`
// line; exit code 1, no traceback.

// RUN: printf 'func.func @f() {\n  \377\n}\n' > %t.mlir
// RUN: not pypto-opt %t.mlir 2>&1 | filecheck %s --check-prefix=OPT -DFILE=%t.mlir
// RUN: not pypto-opt < %t.mlir 2>&1 | filecheck %s --check-prefix=OPT -DFILE='<stdin>'
// RUN: not pypto-run %t.mlir 2>&1 | filecheck %s --check-prefix=KERNEL -DFILE=%t.mlir
// RUN: not pypto-run - < %t.mlir 2>&1 | filecheck %s --check-prefix=KERNEL -DFILE='<stdin>'

// In a later chunk of a split input, the line counts from the top of the file.
// RUN: printf 'func.func @f() {\n  func.return\n}\n// -----\n\n  \377\n' > %t.split.mlir
// RUN: not pypto-opt %t.split.mlir --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=SPLIT -DFILE=%t.split.mlir

// OPT-NOT:    Traceback
// OPT:        {{^}}pypto-opt: error: cannot read [[FILE]]: not UTF-8 text (byte 0xff at line 2, column 3){{$}}
// OPT-NOT:    {{.}}

// KERNEL-NOT: Traceback
// KERNEL:     {{^}}pypto-run: error: cannot read [[FILE]]: not UTF-8 text (byte 0xff at line 2, column 3){{$}}
// KERNEL-NOT: {{.}}

// SPLIT:      {{^}}pypto-opt: error: cannot read [[FILE]]: not UTF-8 text (byte 0xff at line 6, column 3){{$}}
