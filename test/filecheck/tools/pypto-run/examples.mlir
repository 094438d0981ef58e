// Every example runs, and keeps bit-identical results under upstream passes.

// RUN: pypto-run %examples/add_one.mlir --passes canonicalize,cse | filecheck %s --check-prefix=ADD
// RUN: pypto-run %examples/row_softmax.mlir --seed 1 --passes cse | filecheck %s --check-prefix=SOFTMAX
// RUN: pypto-run %examples/matmul_k_loop.mlir --entry matmul_k_loop --passes canonicalize | filecheck %s --check-prefix=MATMUL

// ADD:      @add_one: seed 0
// ADD-NEXT:   %x    unchanged  1024xf32  min {{.*}} sha256 {{[0-9a-f]+}}
// ADD-NEXT:   %out  written    1024xf32  min {{.*}} sha256 {{[0-9a-f]+}}
// ADD-NEXT: after --passes 'canonicalize,cse': all 2 outputs bit-identical

// SOFTMAX:      @row_softmax: seed 1
// SOFTMAX-NEXT:   %x    unchanged  128x64xf32  min {{.*}}
// SOFTMAX-NEXT:   %out  written    128x64xf32  min {{[0-9.e-]+}}  max {{[0-9.e-]+}}  mean 0.015625  sha256 {{.*}}
// SOFTMAX-NEXT: after --passes 'cse': all 2 outputs bit-identical

// MATMUL:      @matmul_k_loop: seed 0
// MATMUL-NEXT:   %a  unchanged  16x512xbf16  min {{.*}}
// MATMUL-NEXT:   %b  unchanged  512x256xbf16  min {{.*}}
// MATMUL-NEXT:   %c  written    16x256xf32  min {{.*}}
// MATMUL-NEXT: after --passes 'canonicalize': all 3 outputs bit-identical
