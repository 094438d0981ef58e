// `--help-pass NAME` prints the pass's docstring and, per option, its
// spellings, the values it takes, its default and its attribute docstring:
// for our passes and for upstream ones (with what they document).

// RUN: pypto-opt --help-pass lower-pipeline-loops | filecheck %s --check-prefix=OURS
// RUN: pypto-opt --help-pass canonicalize-io-order | filecheck %s --check-prefix=EXPLAIN
// RUN: pypto-opt --help-pass inline-snrt | filecheck %s --check-prefix=UPSTREAM
// RUN: pypto-opt --help-pass convert-scf-to-openmp | filecheck %s --check-prefix=UNDOCUMENTED
// RUN: pypto-opt --help-pass cse | filecheck %s --check-prefix=NONE
// RUN: not pypto-opt --help-pass lower-pipeline-loop 2>&1 | filecheck %s --check-prefix=TYPO

// OURS:      lower-pipeline-loops (passes.lower_pipeline_loops.LowerPipelineLoopsPass)
// OURS-EMPTY:
// OURS-NEXT:   Unroll every `pypto.pipeline` of `stages F > 1` F times, tagging the copies.
// OURS-EMPTY:
// OURS-NEXT:   Each becomes a `stages 1` main loop
// OURS:      Options (lower-pipeline-loops{option=value ...}):
// OURS-NEXT:   max-copies (or max_copies): an integer; default 1024
// OURS-NEXT:       The most body copies the lowering of one loop may create, counting the

// EXPLAIN:   Options (canonicalize-io-order{option=value ...}):
// EXPLAIN-NEXT: explain: true or false; default false
// EXPLAIN-NEXT:     Print to stderr, per block, each op that moved or that a dependence held back.

// Options inherited from a base class keep their docstrings.
// UPSTREAM:  inline-snrt (xdsl.transforms.inline_snrt.InlineSnrtPass)
// UPSTREAM:  Options (inline-snrt{option=value ...}):
// UPSTREAM-NEXT: cluster-num (or cluster_num): an integer; default 4
// UPSTREAM-NEXT:     Number of snitch clusters on the chip

// UNDOCUMENTED:      schedule: one of static, dynamic, auto, or nothing (the option alone); default none
// UNDOCUMENTED-NEXT:     (no description)

// NONE:      Options: none.

// TYPO:      pypto-opt: error: --help-pass: unknown pass 'lower-pipeline-loop'; did you mean 'lower-pipeline-loops'{{.*}}? (pypto-opt --list-passes lists the passes)
