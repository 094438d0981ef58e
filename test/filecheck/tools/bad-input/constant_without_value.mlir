// An `arith.constant` without its value, used before its definition: the
// verifier of the op that uses it asks for its value first, which is then
// unknown, not an internal error (KeyError, once); the constant's own
// verifier reports it. Found by the mutation campaign.

// RUN: not pypto-opt %s 2>&1 | filecheck %s
// RUN: not pypto-run %s 2>&1 | filecheck %s

"builtin.module"() ({
  "func.func"() <{sym_name = "f", function_type = (!pypto.tensor<16xf32>) -> ()}> ({
  ^bb0(%x: !pypto.tensor<16xf32>):
    %t = "pypto.tile.load"(%x, %c0) : (!pypto.tensor<16xf32>, index) -> !pypto.tile<8xf32, vec>
    %c0 = "arith.constant"() : () -> index
    "func.return"() : () -> ()
  }) : () -> ()
}) : () -> ()

// CHECK-NOT: internal error
// CHECK:     constant_without_value.mlir:13:5: error: 'arith.constant' op property 'value' expected in operation 'arith.constant'
