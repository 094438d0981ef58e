// explain=true names values as the printed output names them: two loops of
// one function share the name hints %i and %t, and the printer tells them
// apart (%i_1, %t_2: the binding of the first load took %t_1); a result
// without a name hint is numbered.

// RUN: xdsl-opt -p 'lower-pipeline-to-slots{explain=true}' %s 2>%t.err | filecheck %s --check-prefix=IR
// RUN: filecheck %s < %t.err

func.func @names(%x: !pypto.tensor<1024xf32>, %y: !pypto.tensor<1024xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  pypto.pipeline %i = %c0 to %c64 step %c1 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    %0 = pypto.tile.load %y[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t, %0) : (!pypto.tile<64xf32, vec>, !pypto.tile<64xf32, vec>) -> ()
  }
  pypto.pipeline %i = %c0 to %c64 step %c2 stages 2 {
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<64xf32, vec>
    "test.op"(%t) : (!pypto.tile<64xf32, vec>) -> ()
  }
  func.return
}

// The names the printer gives, which explain must use.
// IR:      scf.for %i =
// IR:        %t = pypto.tile.load %x[%i]
// IR-NEXT:   %t_1 = pypto.bind %t
// IR-NEXT:   %0 = pypto.tile.load %y[%i]
// IR:      pypto.pipeline %i_1 =
// IR-NEXT:   %t_2 = pypto.tile.load %x[%i_1]

// CHECK:      lower-pipeline-to-slots: @names: pypto.pipeline over %i, stages 2: 2 load(s) rotate through 2 slots each: pypto.tile.load %t, pypto.tile.load %0{{$}}
// CHECK-NEXT: lower-pipeline-to-slots: @names: pypto.pipeline over %i_1, stages 2: declined by gate step: the step is not the constant 1 (at pypto.pipeline over %i_1)
