// `--help-pass NAME` prints the pass's docstring and, per option, its
// spellings, the values it takes, its default and its attribute docstring:
// for our passes and for upstream ones (with what they document).

// RUN: pypto-opt --help-pass lower-pipeline-loops | filecheck %s --check-prefix=OURS
// RUN: pypto-opt --help-pass canonicalize-io-order | filecheck %s --check-prefix=EXPLAIN
// RUN: pypto-opt --help-pass lower-pipeline-to-slots | filecheck %s --check-prefix=SLOTS
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
// OURS:        auto-stages (or auto_stages): true or false; default false
// OURS-NEXT:       Each pipeline's `stages` becomes the stages advisor's choice among 1 to

// EXPLAIN:   Options (canonicalize-io-order{option=value ...}):
// EXPLAIN-NEXT: explain: true or false; default false
// EXPLAIN-NEXT:     Print to stderr, per block, each op that moved or that a dependence held
// EXPLAIN-NEXT:     back; with `order=modelled`, the candidates and their modelled times.
// EXPLAIN-NEXT: order: one of category, engine, modelled; default "category"
// EXPLAIN-NEXT:     `category` (PyPTO's), `engine` or `modelled`: see the pass's page.
// EXPLAIN-NEXT: costs: a string; default ""

// SLOTS:      lower-pipeline-to-slots (passes.lower_pipeline_to_slots.LowerPipelineToSlotsPass)
// SLOTS-EMPTY:
// SLOTS-NEXT:   Rotate the loads of pipeline loops through slots, keeping one body.
// SLOTS:      Options (lower-pipeline-to-slots{option=value ...}):
// SLOTS-NEXT:   explain: true or false; default false
// SLOTS-NEXT:       Print to stderr, per pipeline with stages > 1, the loads it rotates, or
// SLOTS:        costs: a string; default ""
// SLOTS-NEXT:       The cost table (JSON, as `pypto-report --costs`) whose capacities bound

// Options inherited from a base class keep their docstrings.
// UPSTREAM:  inline-snrt (xdsl.transforms.inline_snrt.InlineSnrtPass)
// UPSTREAM:  Options (inline-snrt{option=value ...}):
// UPSTREAM-NEXT: cluster-num (or cluster_num): an integer; default 4
// UPSTREAM-NEXT:     Number of snitch clusters on the chip

// UNDOCUMENTED:      schedule: one of static, dynamic, auto, or nothing (the option alone); default none
// UNDOCUMENTED-NEXT:     (no description)

// NONE:      Options: none.

// TYPO:      pypto-opt: error: --help-pass: unknown pass 'lower-pipeline-loop'; did you mean 'lower-pipeline-loops'{{.*}}? (pypto-opt --list-passes lists the passes)
