// Command-line, pass and input problems are `error:` lines with exit code 1.

// RUN: not pypto-run %s 2>&1 | filecheck %s --check-prefix=ENTRY
// RUN: not pypto-run %s --entry nope 2>&1 | filecheck %s --check-prefix=NOPE -DFILE=%s
// RUN: not pypto-run %s --entry @f --passes no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not pypto-run %s --entry @f --passes 'lower-pipeline-loops{maxcopies=2}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not pypto-run %s --entry @f --passes 'canonicalize-io-order{explain=1}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: printf '// nothing\n' > %t.mlir && not pypto-run %t.mlir 2>&1 | filecheck %s --check-prefix=EMPTY -DFILE=%t.mlir
// RUN: printf '' > %t.mlir && not pypto-run %t.mlir --entry main 2>&1 | filecheck %s --check-prefix=EMPTY-ENTRY -DFILE=%t.mlir
// RUN: printf 'import pypto.language as pl\n' > %t.py && not pypto-run %t.py 2>&1 | filecheck %s --check-prefix=PY -DFILE=%t.py
// RUN: not pypto-run %s --entry f --inputs %s 2>&1 | filecheck %s --check-prefix=NPZ -DFILE=%s
// RUN: not pypto-run %s --entry f --passes canonicalize-io-order 2>&1 | filecheck %s --check-prefix=FAILED -DFILE=%s

func.func @f(%x: !pypto.tensor<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
    %off = arith.muli %i, %c2 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<16xf32> -> !pypto.tile<8xf32, vec>
    pypto.tile.store %t, %x[%off] : !pypto.tile<8xf32, vec>, !pypto.tensor<16xf32>
  }
  func.return
}

func.func @g() {
  func.return
}

// ENTRY: pypto-run: error: choose the function to run with --entry (functions: @f, @g)
// NOPE:  [[FILE]]: error: no function @nope in the module (functions: @f, @g)
// PASS:  pypto-run: error: --passes: unknown pass 'no-such-pass' (pypto-opt --list-passes lists the passes)
// OPTION: pypto-run: error: --passes: pass 'lower-pipeline-loops' has no option 'maxcopies'; did you mean 'max-copies'? (its options: max-copies (or max_copies); `pypto-opt --help-pass lower-pipeline-loops` describes them)
// VALUE: pypto-run: error: --passes: pass 'canonicalize-io-order': option 'explain' takes true or false, got '1'
// EMPTY: [[FILE]]: error: no function to run: the module has no func.func with a body
// EMPTY-ENTRY: [[FILE]]: error: no function @main in the module (functions: none)
// PY:    [[FILE]]:1:1: error: no @pl.program class: a PyPTO program holds 'import pypto.language as pl' and @pl.program classes
// NPZ:   [[FILE]]: error: cannot read the inputs: not an .npz archive
// FAILED:      [[FILE]]:18:3: error: after --passes 'canonicalize-io-order': 'pypto.pipeline' op pypto.pipeline with stages 2 is not lowered yet
// FAILED-NEXT: {{^}}  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
