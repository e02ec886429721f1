import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { routeLensCommand, ubFromLenses } from '../src/lens';

test('server lens commands run the extension commands, with their arguments', () => {
  const args = [{ uri: 'file:///p/op_kernel/add.cpp' }];
  assert.deepEqual(routeLensCommand({ title: 'Validate', command: 'kernelgen.validate', arguments: args }), {
    title: 'Validate',
    command: 'ascendc.validateKernel',
    arguments: args,
  });
  assert.equal(routeLensCommand({ title: 'Generate from reference', command: 'kernelgen.generateKernel' }).command, 'ascendc.generateKernel');
  assert.equal(routeLensCommand({ title: 'UB', command: 'kernelgen.status' }).command, 'ascendc.showStatus');
  assert.equal(routeLensCommand({ title: 'other', command: 'editor.action.x' }).command, 'editor.action.x');
});

test('the UB lens gives used and capacity in bytes', () => {
  const lenses = [
    { command: { title: 'Validate', command: 'kernelgen.validate' } },
    { command: { title: 'UB 196.5 KB / 192 KB', command: 'kernelgen.status' } },
  ];
  assert.deepEqual(ubFromLenses(lenses), { used: 196.5 * 1024, capacity: 192 * 1024 });
  assert.deepEqual(ubFromLenses([{ command: { title: 'UB 512 B / 256 KB', command: 'kernelgen.status' } }]), {
    used: 512,
    capacity: 256 * 1024,
  });
});

test('no UB lens, or an unknown figure, gives no UB use', () => {
  assert.equal(ubFromLenses([]), undefined);
  assert.equal(ubFromLenses([{ command: { title: 'UB ? / 192 KB', command: 'kernelgen.status' } }]), undefined);
});
