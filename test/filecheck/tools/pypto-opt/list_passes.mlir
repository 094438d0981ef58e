// `--list-passes` lists every pass, one line each (name and the first
// sentence of its docstring), this distribution's first; `--help` names
// none of them (it used to list every pass in the help of `-p`).

// RUN: pypto-opt --list-passes | filecheck %s
// RUN: pypto-opt --help | filecheck %s --check-prefix=HELP

// CHECK:      pypto-dialect passes:
// CHECK-NEXT:   canonicalize-io-order     Order the blocks of pipeline loops as loads first, then compute and stores
// CHECK-NEXT:   lower-pipeline-loops      Unroll every `pypto.pipeline` of `stages F > 1` F times, tagging the copies
// CHECK-NEXT:   lower-pipeline-to-slots   Rotate the loads of pipeline loops through slots, keeping one body
// CHECK-NEXT:   pipeline-report           Print the modelled schedule of every pipeline loop to stderr; change nothing
// CHECK-NEXT:   skew-cross-core-pipeline  Skew cross-core pipeline loops: the producer runs ahead of the consumer
// CHECK-EMPTY:
// CHECK-NEXT: xdsl passes:
// CHECK:        canonicalize {{ +}}Applies all canonicalization patterns
// CHECK:        cse {{ +}}
// CHECK:      `pypto-opt --help-pass NAME` describes a pass and its options

// HELP:       -p PASSES, --passes PASSES
// HELP-NOT:   canonicalize-io-order
// HELP-NOT:   apply-eqsat-pdl
// HELP:       --list-passes
// HELP:       --help-pass NAME
