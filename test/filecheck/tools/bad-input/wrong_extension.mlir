// The three tools choose the parser by file extension alike (`-`, stdin, is
// MLIR): an unknown extension, or none, is one `cannot read` line; exit code
// 1, no traceback.

// RUN: printf 'func.func @f() {\n  func.return\n}\n' > %t.txt
// RUN: rm -rf %t.d && mkdir %t.d && cp %t.txt %t.d/kernel
// RUN: not pypto-opt %t.txt 2>&1 | filecheck %s --check-prefix=TXT -DFILE=%t.txt -DTOOL=pypto-opt
// RUN: not pypto-run %t.txt 2>&1 | filecheck %s --check-prefix=TXT -DFILE=%t.txt -DTOOL=pypto-run
// RUN: not pypto-report %t.txt 2>&1 | filecheck %s --check-prefix=TXT -DFILE=%t.txt -DTOOL=pypto-report
// RUN: not pypto-opt %t.d/kernel 2>&1 | filecheck %s --check-prefix=NONE -DFILE=%t.d/kernel -DTOOL=pypto-opt
// RUN: not pypto-run %t.d/kernel 2>&1 | filecheck %s --check-prefix=NONE -DFILE=%t.d/kernel -DTOOL=pypto-run
// RUN: not pypto-report %t.d/kernel 2>&1 | filecheck %s --check-prefix=NONE -DFILE=%t.d/kernel -DTOOL=pypto-report
// RUN: pypto-run - < %t.txt 2>&1 | filecheck %s --check-prefix=KERNEL

// TXT-NOT:     Traceback
// TXT:         {{^}}[[TOOL]]: error: cannot read [[FILE]]: unknown file extension '.txt' (known: .mlir, .py, .pypto){{$}}
// TXT-NOT:     {{.}}

// NONE:        {{^}}[[TOOL]]: error: cannot read [[FILE]]: no file extension (known: .mlir, .py, .pypto){{$}}
// NONE-NOT:    {{.}}

// KERNEL:      {{^}}@f: seed 0{{$}}
// KERNEL-NOT:  {{.}}
