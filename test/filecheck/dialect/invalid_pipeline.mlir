// One case per verifier rule of `pypto.pipeline` and `pypto.yield`.

// RUN: xdsl-opt %s --split-input-file --verify-diagnostics | filecheck %s

func.func @stages_zero(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages 0 {
  }
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: stages must be at least 1, got 0

// -----

func.func @stages_negative(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages -2 {
  }
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: stages must be at least 1, got -2

// -----

func.func @stages_missing(%n: index) {
  "pypto.pipeline"(%n, %n, %n) ({
  ^bb0(%i: index):
    "pypto.yield"() : () -> ()
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: property 'stages' expected in operation 'pypto.pipeline'

// -----

func.func @bound_not_index(%n: index, %m: i32) {
  "pypto.pipeline"(%n, %m, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: index):
    "pypto.yield"() : () -> ()
  }) : (index, i32, index) -> ()
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: operand 'ub' at position 1 does not verify:
// CHECK-NEXT: | i32 should be of base attribute index

// -----

func.func @no_induction_variable(%n: index) {
  "pypto.pipeline"(%n, %n, %n) <{stages = 1 : i64}> ({
    "pypto.yield"() : () -> ()
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: body must take the index induction variable as its first argument

// -----

func.func @induction_variable_not_index(%n: index) {
  "pypto.pipeline"(%n, %n, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: i64):
    "pypto.yield"() : () -> ()
  }) : (index, index, index) -> ()
  func.return
}
// CHECK:      "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: body must take the index induction variable as its first argument

// -----

func.func @block_argument_count(%n: index) {
  %r = "pypto.pipeline"(%n, %n, %n, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: index):
    "pypto.yield"(%i) : (index) -> ()
  }) : (index, index, index, index) -> index
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 1 loop-carried block arguments (one per iter_arg), got 0

// -----

func.func @block_argument_type(%n: index) {
  %r = "pypto.pipeline"(%n, %n, %n, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: index, %a: i32):
    "pypto.yield"(%i) : (index) -> ()
  }) : (index, index, index, index) -> index
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: loop-carried block argument #0 has type i32 but iter_arg #0 has type index

// -----

func.func @result_count(%n: index) {
  %r = "pypto.pipeline"(%n, %n, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: index):
    "pypto.yield"() : () -> ()
  }) : (index, index, index) -> index
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: expected 0 results (one per iter_arg), got 1

// -----

func.func @result_type(%n: index) {
  %r = "pypto.pipeline"(%n, %n, %n, %n) <{stages = 1 : i64}> ({
  ^bb0(%i: index, %a: index):
    "pypto.yield"(%a) : (index) -> ()
  }) : (index, index, index, index) -> i64
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: result #0 has type i64 but iter_arg #0 has type index

// -----

func.func @yield_count(%n: index) {
  %r = pypto.pipeline %i = %n to %n step %n stages 2 iter_args(%a = %n) -> (index) {
    pypto.yield %a, %a : index, index
  }
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK:      ^
// CHECK-NEXT: | Operation does not verify: expected 1 pypto.yield operands (one per iter_arg), got 2

// -----

func.func @yield_type(%n: index, %f: f32) {
  %r = pypto.pipeline %i = %n to %n step %n stages 2 iter_args(%a = %n) -> (index) {
    pypto.yield %f : f32
  }
  func.return
}
// CHECK:      %r = "pypto.pipeline"
// CHECK:      ^
// CHECK-NEXT: | Operation does not verify: pypto.yield operand #0 has type f32 but iter_arg #0 has type index

// -----

func.func @missing_yield_with_iter_args(%n: index) {
  %r = pypto.pipeline %i = %n to %n step %n stages 2 iter_args(%a = %n) -> (index) {
    %b = arith.addi %a, %i : index
  }
  func.return
}
// CHECK: Operation arith.addi terminates block in single-block region but is not a terminator

// -----

func.func @yield_outside_pipeline() {
  pypto.yield
}
// CHECK:      "pypto.yield"
// CHECK-NEXT: ^
// CHECK-NEXT: | Operation does not verify: 'pypto.yield' expects parent op 'pypto.pipeline'

// -----

func.func @wrong_terminator(%n: index) {
  pypto.pipeline %i = %n to %n step %n stages 1 {
    scf.yield
  }
  func.return
}
// CHECK: 'pypto.pipeline' terminates with operation scf.yield instead of pypto.yield

// -----

// xDSL checks no dominance: the pipeline does, on the input (issue 10).
func.func @use_before_definition(%x: !pypto.tensor<1024xf32>, %n: index) {
  pypto.pipeline %i = %n to %n step %n stages 2 {
    %y = pypto.tile.adds %t, %f : !pypto.tile<128xf32, vec>, f32
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    %f = arith.constant 1.0 : f32
  }
  func.return
}
// CHECK: Operation does not verify: operand #0 (%t) of 'pypto.tile.adds' in the body is not defined before its use in a block that encloses it

// -----

func.func @nested_use_before_definition(%x: !pypto.tensor<1024xf32>, %n: index) {
  pypto.pipeline %i = %n to %n step %n stages 2 {
    scf.for %j = %n to %n step %n {
      pypto.tile.store %t, %x[%j] : !pypto.tile<128xf32, vec>, !pypto.tensor<1024xf32>
    }
    %t = pypto.tile.load %x[%i] : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
  }
  func.return
}
// CHECK: Operation does not verify: operand #0 (%t) of 'pypto.tile.store' in the body is not defined before its use in a block that encloses it

// -----

// A value of the body used outside the loop (generic form: xDSL's parser lets
// the name through).
"func.func"() <{sym_name = "used_outside", function_type = (index) -> ()}> ({
^bb0(%n: index):
  %o = "arith.addi"(%s, %n) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
  "pypto.pipeline"(%n, %n, %n) <{stages = 2 : i64}> ({
  ^bb0(%i: index):
    %s = "arith.muli"(%i, %n) <{overflowFlags = #arith.overflow<none>}> : (index, index) -> index
    "pypto.yield"() : () -> ()
  }) : (index, index, index) -> ()
  "func.return"() : () -> ()
}) : () -> ()
// CHECK: Operation does not verify: %s is defined in the body but used outside the loop, by 'arith.addi'
