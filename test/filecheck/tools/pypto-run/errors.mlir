// Command-line, pass and input problems are `error:` lines with exit code 1.

// RUN: not pypto-run %s 2>&1 | filecheck %s --check-prefix=ENTRY
// RUN: not pypto-run %s --entry nope 2>&1 | filecheck %s --check-prefix=NOPE -DFILE=%s
// RUN: not pypto-run %s --entry @f --passes no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
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
// PASS:  pypto-run: error: --passes: Unrecognized passes: ['no-such-pass'] (`pypto-opt --help` lists the available passes)
// NPZ:   [[FILE]]: error: cannot read the inputs: not an .npz archive
// FAILED:      [[FILE]]:13:3: error: after --passes 'canonicalize-io-order': 'pypto.pipeline' op pypto.pipeline with stages 2 is not lowered yet
// FAILED-NEXT: {{^}}  pypto.pipeline %i = %c0 to %c2 step %c1 stages 2 {
