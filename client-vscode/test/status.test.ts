import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { render, summarizeValidation, validationBadge } from '../src/status';

test('a passing validation reads ✓ passed/total', () => {
  assert.equal(validationBadge(summarizeValidation({ ok: true, passed: 6, total: 6 })!), '✓ 6/6');
});

test('a failing validation reads ✗ and the rule code of its first failure', () => {
  assert.equal(validationBadge(summarizeValidation({ ok: false, rule: 'datacopy-align' })!), '✗ datacopy-align');
});

test('a whole ValidationReport is summarised from its cases and runtime errors', () => {
  const passing = { ok: true, compile: { ok: true }, cases: [{ ok: true }, { ok: true }], runtime_errors: [] };
  assert.equal(validationBadge(summarizeValidation(passing)!), '✓ 2/2');
  const crashing = { ok: false, compile: { ok: true }, cases: [{ ok: false }], runtime_errors: [{ code: 'ub-overflow' }] };
  assert.equal(validationBadge(summarizeValidation(crashing)!), '✗ ub-overflow');
  const compileOnly = { ok: true, compile: { ok: true }, cases: [], runtime_errors: [] };
  assert.equal(validationBadge(summarizeValidation(compileOnly)!), '✓ compiled');
  const broken = { ok: false, compile: { ok: false }, cases: [], runtime_errors: [] };
  assert.equal(validationBadge(summarizeValidation(broken)!), '✗ compile');
  const mismatch = { ok: false, compile: { ok: true }, cases: [{ ok: true }, { ok: false }], runtime_errors: [] };
  assert.equal(validationBadge(summarizeValidation(mismatch)!), '✗ 1/2');
});

test('no validation yet shows no badge', () => {
  assert.equal(summarizeValidation(null), undefined);
  assert.doesNotMatch(render('running', { state: 'ready' }).text, /[✓✗]/);
});

test('the running server shows UB use and the last validation', () => {
  const view = render('running', {
    state: 'ready',
    ub: { used: 96 * 1024, capacity: 192 * 1024 },
    validation: { ok: true, passed: 6, total: 6 },
  });
  assert.equal(view.text, '$(circuit-board) AscendC UB 50% ✓ 6/6');
  assert.match(view.tooltip, /Unified Buffer: 96 KiB of 192 KiB \(50%\)/);
  assert.equal(view.error, false);
});

test('an unreachable completion backend is flagged in the text and named in the tooltip', () => {
  const view = render('running', { completion: { backend: 'llm', reachable: false } });
  assert.match(view.text, /\$\(debug-disconnect\)/);
  assert.match(view.tooltip, /Completion: llm, unreachable/);
});

test('busy server states spin; a server that could not start is an error', () => {
  assert.match(render('running', { state: 'validating' }).text, /sync~spin/);
  assert.match(render('starting', undefined).text, /sync~spin/);
  const failed = render('failed', undefined);
  assert.equal(failed.error, true);
  assert.match(failed.tooltip, /could not start/);
});
