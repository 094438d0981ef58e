// A bad `order`, a negative `search-budget` or an unusable `costs` table is an `error:` line naming the
// problem, exit code 1, before anything changes.

// RUN: not pypto-opt -p 'canonicalize-io-order{order=fastest}' %s 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modeled}' %s 2>&1 | filecheck %s --check-prefix=NEAR
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled costs="%S/Inputs/no-such-table.json"}' %s 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not pypto-opt -p 'canonicalize-io-order{order=engine costs="%S/Inputs/bad-field.json"}' %s 2>&1 | filecheck %s --check-prefix=FIELD
// RUN: not pypto-opt -p 'canonicalize-io-order{costs="%S/Inputs/not-json.json"}' %s 2>&1 | filecheck %s --check-prefix=JSON
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled search-budget=-1}' %s 2>&1 | filecheck %s --check-prefix=BUDGET

// ORDER:   error: --passes: pass 'canonicalize-io-order': option 'order' takes one of category, engine, modelled, got 'fastest'{{$}}
// NEAR:    error: --passes: pass 'canonicalize-io-order': option 'order' takes one of category, engine, modelled, got 'modeled'; did you mean 'modelled'?
// MISSING: error: canonicalize-io-order: {{.*}}no-such-table.json: cannot read the cost table: No such file or directory
// FIELD:   error: canonicalize-io-order: {{.*}}bad-field.json: {{.+}}
// JSON:    error: canonicalize-io-order: {{.*}}not-json.json:{{[0-9]+}}:{{[0-9]+}}: invalid JSON
// BUDGET:  error: canonicalize-io-order: search-budget must be 0 or more, got -1
// BUDGET-NOT: Traceback
func.func @f() {
  func.return
}
