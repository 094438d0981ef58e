// The three tools read a file alike: a missing file, a directory, a file past
// the size limit (64 MiB) are one `cannot read` line, exit code 1; `-` is
// stdin for all three.

// RUN: rm -rf %t.d && mkdir -p %t.d/dir.mlir && ln -s /dev/zero %t.d/zero.mlir
// RUN: not pypto-opt %t.d/none.mlir 2>&1 | filecheck %s --check-prefix=MISSING -DFILE=%t.d/none.mlir -DTOOL=pypto-opt
// RUN: not pypto-run %t.d/none.mlir 2>&1 | filecheck %s --check-prefix=MISSING -DFILE=%t.d/none.mlir -DTOOL=pypto-run
// RUN: not pypto-report %t.d/none.mlir 2>&1 | filecheck %s --check-prefix=MISSING -DFILE=%t.d/none.mlir -DTOOL=pypto-report
// RUN: not pypto-opt %t.d/dir.mlir 2>&1 | filecheck %s --check-prefix=DIR -DFILE=%t.d/dir.mlir -DTOOL=pypto-opt
// RUN: not pypto-run %t.d/dir.mlir 2>&1 | filecheck %s --check-prefix=DIR -DFILE=%t.d/dir.mlir -DTOOL=pypto-run
// RUN: not pypto-report %t.d/dir.mlir 2>&1 | filecheck %s --check-prefix=DIR -DFILE=%t.d/dir.mlir -DTOOL=pypto-report
// RUN: not pypto-opt %t.d/zero.mlir 2>&1 | filecheck %s --check-prefix=LARGE -DFILE=%t.d/zero.mlir -DTOOL=pypto-opt
// RUN: not pypto-run %t.d/zero.mlir 2>&1 | filecheck %s --check-prefix=LARGE -DFILE=%t.d/zero.mlir -DTOOL=pypto-run
// RUN: not pypto-report %t.d/zero.mlir 2>&1 | filecheck %s --check-prefix=LARGE -DFILE=%t.d/zero.mlir -DTOOL=pypto-report
// RUN: pypto-opt - < %s | filecheck %s --check-prefix=STDIN
// RUN: pypto-run - < %s | filecheck %s --check-prefix=KERNEL
// RUN: pypto-report - < %s | filecheck %s --check-prefix=REPORT

func.func @f() {
  func.return
}

// MISSING-NOT: Traceback
// MISSING:     {{^}}[[TOOL]]: error: cannot read [[FILE]]: No such file or directory{{$}}
// MISSING-NOT: {{.}}
// DIR:         {{^}}[[TOOL]]: error: cannot read [[FILE]]: Is a directory{{$}}
// DIR-NOT:     {{.}}
// LARGE:       {{^}}[[TOOL]]: error: cannot read [[FILE]]: larger than 67,108,864 bytes{{$}}
// LARGE-NOT:   {{.}}
// STDIN:       func.func @f()
// KERNEL:      {{^}}@f: seed 0{{$}}
// REPORT:      no pypto.pipeline loops
