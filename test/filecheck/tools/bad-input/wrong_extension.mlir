// pypto-opt chooses the parser by file extension: an unknown extension, or
// none, is one `cannot read` line; exit code 1, no traceback. pypto-run reads
// only MLIR, whatever the file is called.

// RUN: printf 'func.func @f() {\n  func.return\n}\n' > %t.txt
// RUN: rm -rf %t.d && mkdir %t.d && cp %t.txt %t.d/kernel
// RUN: not pypto-opt %t.txt 2>&1 | filecheck %s --check-prefix=TXT -DFILE=%t.txt
// RUN: not pypto-opt %t.d/kernel 2>&1 | filecheck %s --check-prefix=NONE -DFILE=%t.d/kernel
// RUN: pypto-run %t.txt 2>&1 | filecheck %s --check-prefix=KERNEL

// TXT-NOT:     Traceback
// TXT:         {{^}}pypto-opt: error: cannot read [[FILE]]: unknown file extension '.txt' (known: .pypto, .py, .mlir){{$}}
// TXT-NOT:     {{.}}

// NONE:        {{^}}pypto-opt: error: cannot read [[FILE]]: no file extension (known: .pypto, .py, .mlir){{$}}
// NONE-NOT:    {{.}}

// KERNEL:      {{^}}@f: seed 0{{$}}
// KERNEL-NOT:  {{.}}
