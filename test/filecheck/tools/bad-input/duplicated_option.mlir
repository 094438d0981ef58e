// An option given twice to one pass is an error naming it, in the three
// tools (their shared pipeline parser, pypto_dialect/tools/pipelines.py,
// finds it; xDSL's keeps the last value). `-` and `_` spell the same option;
// the same option of two passes is no duplicate.

// RUN: not pypto-opt %s -p 'lower-pipeline-loops{remainder=loop remainder=cascade}' 2>&1 | filecheck %s --check-prefix=TWICE -DTOOL=pypto-opt
// RUN: not pypto-run %s --passes 'lower-pipeline-loops{remainder=loop remainder=cascade}' 2>&1 | filecheck %s --check-prefix=TWICE -DTOOL=pypto-run
// RUN: not pypto-report %s --passes 'lower-pipeline-loops{remainder=loop remainder=cascade}' 2>&1 | filecheck %s --check-prefix=TWICE -DTOOL=pypto-report
// RUN: not pypto-opt %s -p 'lower-pipeline-loops{auto-stages=true auto_stages=false}' 2>&1 | filecheck %s --check-prefix=SPELLED
// RUN: not pypto-opt %s -p 'canonicalize-io-order{explain order=engine explain}' 2>&1 | filecheck %s --check-prefix=FLAG
// RUN: pypto-opt %s -p 'lower-pipeline-loops{remainder=loop},lower-pipeline-loops{remainder=loop}' | filecheck %s --check-prefix=TWOPASSES

func.func @f() {
  func.return
}

// TWICE:     {{^}}[[TOOL]]: error: --passes: pass 'lower-pipeline-loops': option 'remainder' is given twice{{$}}
// TWICE-NOT: {{.}}
// SPELLED:   {{^}}pypto-opt: error: --passes: pass 'lower-pipeline-loops': option 'auto-stages' is given twice{{$}}
// FLAG:      {{^}}pypto-opt: error: --passes: pass 'canonicalize-io-order': option 'explain' is given twice{{$}}
// TWOPASSES: func.func @f()
