// auto-stages=true: each pipeline's stages becomes the stages advisor's
// choice among 1 to the written stages (the bundled cost table; the lowering
// then canonicalize-io-order on copies), with a remark on stderr where it
// changes that says why. Without the option, the written stages are lowered.

// RUN: xdsl-opt -p 'lower-pipeline-loops{auto-stages=true}' %s 2>&1 >/dev/null | filecheck %s --check-prefix=REMARK
// RUN: xdsl-opt -p 'lower-pipeline-loops{auto-stages=true}' %s 2>/dev/null | filecheck %s
// RUN: xdsl-opt -p lower-pipeline-loops %s 2>&1 | filecheck %s --check-prefix=WRITTEN

// Eight stages overfill the load queue: two run at the bound (72 cycles
// per iteration, the load's), eight slower.

// REMARK:      lower-pipeline-loops: remark: @eight: pypto.pipeline %i (#1): stages 8 -> 2 (the smallest within 5% of the bound that fits): [[TWO:[0-9.]+]] cycles per iteration against [[EIGHT:[0-9.]+]] at stages 8, bound [[TWO]]
// REMARK-NOT:  remark

// CHECK-LABEL: func.func @eight
// CHECK:         %[[STEP:.+]] = arith.constant 2 : index
// CHECK-NEXT:    pypto.pipeline %i = %c0 to %c8 step %[[STEP]] stages 1 {
// CHECK-COUNT-2: pypto.tile.load
// CHECK-NOT:     pypto.tile.load
// CHECK:         func.return

// WRITTEN-NOT:   remark
// WRITTEN-LABEL: func.func @eight
// WRITTEN-COUNT-8: pypto.tile.load
// WRITTEN-NOT:   pypto.tile.load
// WRITTEN-LABEL: func.func @two

func.func @eight(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 8 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// The written stages are the advisor's choice: no remark, lowered as written.

// CHECK-LABEL: func.func @two
// CHECK:         %[[STEP2:.+]] = arith.constant 2 : index
// CHECK-NEXT:    pypto.pipeline %i = %c0 to %c8 step %[[STEP2]] stages 1 {

func.func @two(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 2 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}

// Stages 1 has no other candidate: untouched, no remark.

// CHECK-LABEL: func.func @one
// CHECK:         pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {

func.func @one(%x: !pypto.tensor<1024xf32>, %out: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %one = arith.constant 1.0 : f32
  pypto.pipeline %i = %c0 to %c8 step %c1 stages 1 {
    %off = arith.muli %i, %c128 : index
    %t = pypto.tile.load %x[%off] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %y = pypto.tile.adds %t, %one : !pypto.tile<128xf32, vec>, f32
    pypto.tile.store %y, %out[%off] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
  }
  func.return
}
