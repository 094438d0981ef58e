// Every mistake in a pass pipeline is one `error:` line on stderr, exit code
// 1, no traceback, that names the pass, the option and the value, and says
// what would do: the nearest pass or option names, every option with both of
// its spellings, the values an option takes.

// RUN: not pypto-opt %s -p canonicalize,no-such-pass 2>&1 | filecheck %s --check-prefix=UNKNOWN
// RUN: not pypto-opt %s -p 'lower-pipline-loops' 2>&1 | filecheck %s --check-prefix=TYPO
// RUN: not pypto-opt %s -p 'lower-pipeline-loops{maxcopies=3}' 2>&1 | filecheck %s --check-prefix=OPTION
// RUN: not pypto-opt %s -p 'canonicalize-io-order{explain=yes}' 2>&1 | filecheck %s --check-prefix=VALUE
// RUN: not pypto-opt %s -p 'lower-pipeline-loops{max-copies=true}' 2>&1 | filecheck %s --check-prefix=BOOL-INT
// RUN: not pypto-opt %s -p 'lower-pipeline-loops{max_copies}' 2>&1 | filecheck %s --check-prefix=NO-VALUE
// RUN: not pypto-opt %s -p 'canonicalize-io-order{explain=yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy}' 2>&1 | filecheck %s --check-prefix=LONG
// RUN: not pypto-opt %s -p 'canonicalize{explain=true}' 2>&1 | filecheck %s --check-prefix=NO-OPTIONS
// RUN: not pypto-opt %s -p 'x86-set-arch' 2>&1 | filecheck %s --check-prefix=REQUIRED
// RUN: not pypto-opt %s -p 'convert-scf-to-openmp{schedule=sometimes}' 2>&1 | filecheck %s --check-prefix=CHOICES
// RUN: not pypto-opt %s -p 'canonicalize-io-order{explain' 2>&1 | filecheck %s --check-prefix=SYNTAX

// The right spellings are accepted, with dashes or underscores.
// RUN: pypto-opt %s -p 'lower-pipeline-loops{max-copies=8},canonicalize-io-order{explain=false}' | filecheck %s --check-prefix=OK
// RUN: pypto-opt %s -p 'lower-pipeline-loops{max_copies=8}' | filecheck %s --check-prefix=OK

func.func @empty() {
  func.return
}

// UNKNOWN-NOT: Traceback
// UNKNOWN:     pypto-opt: error: --passes: unknown pass 'no-such-pass' (pypto-opt --list-passes lists the passes)
// UNKNOWN-NOT: Traceback

// TYPO:        pypto-opt: error: --passes: unknown pass 'lower-pipline-loops'; did you mean 'lower-pipeline-loops'{{.*}}? (pypto-opt --list-passes lists the passes)

// OPTION:      pypto-opt: error: --passes: pass 'lower-pipeline-loops' has no option 'maxcopies'; did you mean 'max-copies'? (its options: max-copies (or max_copies); `pypto-opt --help-pass lower-pipeline-loops` describes them)

// VALUE:       pypto-opt: error: --passes: pass 'canonicalize-io-order': option 'explain' takes true or false, got 'yes'
// BOOL-INT:    pypto-opt: error: --passes: pass 'lower-pipeline-loops': option 'max-copies' takes an integer, got 'true'
// NO-VALUE:    pypto-opt: error: --passes: pass 'lower-pipeline-loops': option 'max_copies' takes an integer, got no value
// LONG:        pypto-opt: error: --passes: pass 'canonicalize-io-order': option 'explain' takes true or false, got 'yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy...'{{$}}
// NO-OPTIONS:  pypto-opt: error: --passes: pass 'canonicalize' has no options, got 'explain'
// REQUIRED:    pypto-opt: error: --passes: pass 'x86-set-arch' needs the option 'arch' (a string)
// CHOICES:     pypto-opt: error: --passes: pass 'convert-scf-to-openmp': option 'schedule' takes one of static, dynamic, auto, or nothing (the option alone), got 'sometimes'

// SYNTAX:      pypto-opt: error: --passes: Error parsing pass pipeline specification:
// SYNTAX-NEXT: pass-pipeline:1:30
// SYNTAX-NEXT: canonicalize-io-order{explain
// SYNTAX-NEXT: {{^                             \^$}}
// SYNTAX-NEXT: Expected equals, space or end of arguments here

// OK:          func.func @empty
