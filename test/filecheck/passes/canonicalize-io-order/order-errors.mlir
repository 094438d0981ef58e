// A bad `order`, a negative `search-budget` or an unusable `costs` table is an `error:` line naming the
// problem, exit code 1, before anything changes.

// RUN: not pypto-opt -p 'canonicalize-io-order{order=fastest}' %s 2>&1 | filecheck %s --check-prefix=ORDER
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modeled}' %s 2>&1 | filecheck %s --check-prefix=NEAR
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled costs="%S/Inputs/no-such-table.json"}' %s 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not pypto-opt -p 'canonicalize-io-order{order=engine costs="%S/Inputs/bad-field.json"}' %s 2>&1 | filecheck %s --check-prefix=FIELD
// RUN: not pypto-opt -p 'canonicalize-io-order{costs="%S/Inputs/not-json.json"}' %s 2>&1 | filecheck %s --check-prefix=JSON
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled search-budget=-1}' %s 2>&1 | filecheck %s --check-prefix=BUDGET
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled costs="/dev/zero"}' %s 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: python -c "print('{\"queue_depth\": ' + '9' * 5000 + '}')" > %t.digits.json
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled costs="%t.digits.json"}' %s 2>&1 | filecheck %s --check-prefix=DIGITS
// RUN: python -c "print('[' * 100000 + ']' * 100000)" > %t.deep.json
// RUN: not pypto-opt -p 'lower-pipeline-to-slots{costs="%t.deep.json"}' %s 2>&1 | filecheck %s --check-prefix=DEEP
// RUN: not pypto-opt -p 'canonicalize-io-order{order=modelled costs="%S/../../report/Inputs/deep-queue.json"}' %s 2>&1 | filecheck %s --check-prefix=QUEUE
// RUN: not pypto-opt -p 'canonicalize-io-order{order=engine costs="%S/../../report/Inputs/tiny-bandwidth.json"}' %s 2>&1 | filecheck %s --check-prefix=BANDWIDTH

// ORDER:   error: --passes: pass 'canonicalize-io-order': option 'order' takes one of category, engine, modelled, got 'fastest'{{$}}
// NEAR:    error: --passes: pass 'canonicalize-io-order': option 'order' takes one of category, engine, modelled, got 'modeled'; did you mean 'modelled'?
// MISSING: error: canonicalize-io-order: {{.*}}no-such-table.json: cannot read the cost table: No such file or directory
// FIELD:   error: canonicalize-io-order: {{.*}}bad-field.json: {{.+}}
// JSON:    error: canonicalize-io-order: {{.*}}not-json.json:{{[0-9]+}}:{{[0-9]+}}: invalid JSON
// BUDGET:  error: canonicalize-io-order: search-budget must be 0 or more, got -1
// BUDGET-NOT: Traceback
// ZERO:    error: canonicalize-io-order: /dev/zero: cannot read the cost table: larger than 67,108,864 bytes
// DIGITS:  error: canonicalize-io-order: {{.*}}digits.json: invalid {{JSON}}: a number with too many digits
// DEEP:    error: lower-pipeline-to-slots: {{.*}}deep.json: invalid {{JSON}}: lists or objects nested too deeply
// QUEUE:   error: canonicalize-io-order: {{.*}}deep-queue.json: queue_depth: must be at most 32, got 1000000
// BANDWIDTH: error: canonicalize-io-order: {{.*}}tiny-bandwidth.json: engines.MTE2.bandwidth: must be at least 2^-20, got 5e-324
func.func @f() {
  func.return
}
