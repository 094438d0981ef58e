// `pypto.pipeline` and `pypto.yield` print in the syntax of ir.md and
// round-trip through the custom and the generic form.

// RUN: xdsl-opt %s | %roundtrip | filecheck %s
// RUN: xdsl-opt %s | %roundtrip-generic | filecheck %s
// RUN: xdsl-opt %s > %t && xdsl-opt %s | %roundtrip-generic | diff %t -
// RUN: xdsl-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

// Without iter_args the terminator is implicit: not needed in the input, not
// printed, but present in the generic form.
func.func @implicit_terminator(%lb: index, %ub: index, %step: index) {
  pypto.pipeline %i = %lb to %ub step %step stages 2 {
    "test.op"(%i) : (index) -> ()
  }
  pypto.pipeline %j = %lb to %ub step %step stages 1 {
  }
  pypto.pipeline %k = %lb to %ub step %step stages 3 {
    pypto.yield
  }
  func.return
}
// CHECK-LABEL: func.func @implicit_terminator(
// CHECK-SAME:      %[[LB:\w+]]: index, %[[UB:\w+]]: index, %[[STEP:\w+]]: index) {
// CHECK-NEXT:    pypto.pipeline %[[I:\w+]] = %[[LB]] to %[[UB]] step %[[STEP]] stages 2 {
// CHECK-NEXT:      "test.op"(%[[I]]) : (index) -> ()
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %[[LB]] to %[[UB]] step %[[STEP]] stages 1 {
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %[[LB]] to %[[UB]] step %[[STEP]] stages 3 {
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "implicit_terminator"
// GENERIC:         "pypto.pipeline"(%{{\w+}}, %{{\w+}}, %{{\w+}}) <{stages = 2 : i64}> ({
// GENERIC-NEXT:    ^{{\w+}}(%[[I:\w+]]: index):
// GENERIC-NEXT:      "test.op"(%[[I]]) : (index) -> ()
// GENERIC-NEXT:      "pypto.yield"() : () -> ()
// GENERIC-NEXT:    }) : (index, index, index) -> ()
// GENERIC:         "pypto.pipeline"(%{{\w+}}, %{{\w+}}, %{{\w+}}) <{stages = 1 : i64}> ({
// GENERIC-NEXT:    ^{{\w+}}(%{{\w+}}: index):
// GENERIC-NEXT:      "pypto.yield"() : () -> ()
// GENERIC-NEXT:    }) : (index, index, index) -> ()

// iter_args, results and the yield work as in scf.for; the yield is printed.
func.func @iter_args(%lb: index, %ub: index, %step: index, %init: !pypto.tile<16x256xf32, acc>) -> (index, !pypto.tile<16x256xf32, acc>) {
  %one = pypto.pipeline %i = %lb to %ub step %step stages 4 iter_args(%a = %lb) -> (index) {
    %n = arith.addi %a, %i : index
    pypto.yield %n : index
  }
  %two:2 = pypto.pipeline %i = %lb to %ub step %step stages 2 iter_args(%a = %one, %acc = %init) -> (index, !pypto.tile<16x256xf32, acc>) {
    pypto.yield %a, %acc : index, !pypto.tile<16x256xf32, acc>
  }
  func.return %two#0, %two#1 : index, !pypto.tile<16x256xf32, acc>
}
// CHECK-LABEL: func.func @iter_args(
// CHECK-SAME:      %[[LB:\w+]]: index, %[[UB:\w+]]: index, %[[STEP:\w+]]: index, %[[INIT:\w+]]: !pypto.tile<16x256xf32, acc>) -> (index, !pypto.tile<16x256xf32, acc>) {
// CHECK-NEXT:    %[[ONE:\w+]] = pypto.pipeline %[[I:\w+]] = %[[LB]] to %[[UB]] step %[[STEP]] stages 4 iter_args(%[[A:\w+]] = %[[LB]]) -> (index) {
// CHECK-NEXT:      %[[N:\w+]] = arith.addi %[[A]], %[[I]] : index
// CHECK-NEXT:      pypto.yield %[[N]] : index
// CHECK-NEXT:    }
// CHECK-NEXT:    %[[TWO:\w+]], %[[TWO1:\w+]] = pypto.pipeline %{{\w+}} = %[[LB]] to %[[UB]] step %[[STEP]] stages 2 iter_args(%[[A2:\w+]] = %[[ONE]], %[[ACC:\w+]] = %[[INIT]]) -> (index, !pypto.tile<16x256xf32, acc>) {
// CHECK-NEXT:      pypto.yield %[[A2]], %[[ACC]] : index, !pypto.tile<16x256xf32, acc>
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return %[[TWO]], %[[TWO1]] : index, !pypto.tile<16x256xf32, acc>

// GENERIC-LABEL: "func.func"() <{sym_name = "iter_args"
// GENERIC:         "pypto.pipeline"(%{{\w+}}, %{{\w+}}, %{{\w+}}, %{{\w+}}) <{stages = 4 : i64}> ({
// GENERIC-NEXT:    ^{{\w+}}(%{{\w+}}: index, %{{\w+}}: index):
// GENERIC:           "pypto.yield"(%{{\w+}}) : (index) -> ()
// GENERIC-NEXT:    }) : (index, index, index, index) -> index

// The policy properties print after `stages`, in a fixed order, only when not
// the default; default values written explicitly are accepted and dropped, and
// the parser takes them in any order.
func.func @policy(%lb: index, %ub: index, %step: index) {
  pypto.pipeline %i = %lb to %ub step %step stages 2 overlap_stores = false {
  }
  pypto.pipeline %i = %lb to %ub step %step stages 2 double_buffer_acc = true {
  }
  %r = pypto.pipeline %i = %lb to %ub step %step stages 2 overlap_stores = false double_buffer_acc = true iter_args(%a = %lb) -> (index) {
    pypto.yield %a : index
  }
  pypto.pipeline %i = %lb to %ub step %step stages 2 overlap_stores = true double_buffer_acc = false {
  }
  pypto.pipeline %i = %lb to %ub step %step stages 2 double_buffer_acc = true overlap_stores = false {
  }
  func.return
}
// CHECK-LABEL: func.func @policy(
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 overlap_stores = false {
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 double_buffer_acc = true {
// CHECK-NEXT:    }
// CHECK-NEXT:    %{{\w+}} = pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 overlap_stores = false double_buffer_acc = true iter_args(%[[A:\w+]] = %{{\w+}}) -> (index) {
// CHECK-NEXT:      pypto.yield %[[A]] : index
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 {
// CHECK-NEXT:    }
// CHECK-NEXT:    pypto.pipeline %{{\w+}} = %{{\w+}} to %{{\w+}} step %{{\w+}} stages 2 overlap_stores = false double_buffer_acc = true {
// CHECK-NEXT:    }

// GENERIC-LABEL: "func.func"() <{sym_name = "policy"
// GENERIC:         "pypto.pipeline"({{.*}}) <{stages = 2 : i64, overlap_stores = false}> ({
// GENERIC:         "pypto.pipeline"({{.*}}) <{stages = 2 : i64, double_buffer_acc = true}> ({
// GENERIC:         "pypto.pipeline"({{.*}}) <{stages = 2 : i64, overlap_stores = false, double_buffer_acc = true}> ({
// GENERIC:         "pypto.pipeline"({{.*}}) <{stages = 2 : i64}> ({
// GENERIC:         "pypto.pipeline"({{.*}}) <{stages = 2 : i64, overlap_stores = false, double_buffer_acc = true}> ({

// Nested pipelines, discardable attributes on the loop and on its body's ops.
func.func @nested(%x: !pypto.tensor<1024xf32>, %lb: index, %ub: index, %step: index) {
  pypto.pipeline %i = %lb to %ub step %step stages 2 {
    pypto.pipeline %j = %i to %ub step %step stages 4 double_buffer_acc = true {
      %t = pypto.tile.load %x[%j] {pypto.pipeline_membership = #pypto.membership<1:3, 0:1>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
    } {pypto.pipeline_membership = #pypto.membership<0:1>}
  }
  func.return
}
// CHECK-LABEL: func.func @nested(
// CHECK-SAME:      %[[X:\w+]]: !pypto.tensor<1024xf32>, %[[LB:\w+]]: index, %[[UB:\w+]]: index, %[[STEP:\w+]]: index) {
// CHECK-NEXT:    pypto.pipeline %[[I:\w+]] = %[[LB]] to %[[UB]] step %[[STEP]] stages 2 {
// CHECK-NEXT:      pypto.pipeline %[[J:\w+]] = %[[I]] to %[[UB]] step %[[STEP]] stages 4 double_buffer_acc = true {
// CHECK-NEXT:        %{{\w+}} = pypto.tile.load %[[X]][%[[J]]] {pypto.pipeline_membership = #pypto.membership<1:3, 0:1>} : !pypto.tensor<1024xf32> -> !pypto.tile<128xf32, vec>
// CHECK-NEXT:      } {pypto.pipeline_membership = #pypto.membership<0:1>}
// CHECK-NEXT:    }
// CHECK-NEXT:    func.return

// GENERIC-LABEL: "func.func"() <{sym_name = "nested"
// GENERIC:           "pypto.tile.load"({{.*}}) {pypto.pipeline_membership = #pypto.membership<1:3, 0:1>} : (!pypto.tensor<1024xf32>, index) -> !pypto.tile<128xf32, vec>
// GENERIC:         }) {pypto.pipeline_membership = #pypto.membership<0:1>} : (index, index, index) -> ()
