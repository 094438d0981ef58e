// Binary data (here the start of an ELF header, with NUL bytes) is one
// `cannot read` line, not a parse error that prints the raw bytes; exit code
// 1, no traceback.

// RUN: printf '\177ELF\002\001\001\000\000\000' > %t.mlir
// RUN: not pypto-opt %t.mlir 2>&1 | filecheck %s --check-prefix=OPT -DFILE=%t.mlir
// RUN: not pypto-opt < %t.mlir 2>&1 | filecheck %s --check-prefix=OPT -DFILE='<stdin>'
// RUN: not pypto-run %t.mlir 2>&1 | filecheck %s --check-prefix=KERNEL -DFILE=%t.mlir
// RUN: not pypto-run - < %t.mlir 2>&1 | filecheck %s --check-prefix=KERNEL -DFILE='<stdin>'

// OPT-NOT:    Traceback
// OPT:        {{^}}pypto-opt: error: cannot read [[FILE]]: binary data (NUL byte at line 1, column 8){{$}}
// OPT-NOT:    {{.}}

// KERNEL-NOT: Traceback
// KERNEL:     {{^}}pypto-run: error: cannot read [[FILE]]: binary data (NUL byte at line 1, column 8){{$}}
// KERNEL-NOT: {{.}}
