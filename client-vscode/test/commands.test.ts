import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import * as vscode from 'vscode';
import { KernelgenServer } from '../src/api';
import { Commands, describeStatus, describeValidation, registerCommands, targetUri } from '../src/commands';
import { isKernelSource } from '../src/kernelFiles';
import * as stub from './stub/vscode';

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'package.json'), 'utf8'));

function fakeServer(answers: Record<string, unknown>) {
  const sent: { command: string; argument: object }[] = [];
  let restarts = 0;
  const server: KernelgenServer = {
    execute: <T>(command: string, argument: object) => {
      sent.push({ command, argument });
      return Promise.resolve(answers[command] as T);
    },
    onProgress: () => new vscode.Disposable(() => undefined),
    cancelProgress: () => undefined,
    restart: () => {
      restarts += 1;
      return Promise.resolve();
    },
    showLog: () => undefined,
    log: () => undefined,
  };
  return { server, sent, restarts: () => restarts };
}

beforeEach(() => stub.reset());

test('every command the extension registers is contributed under the AscendC category, and back', () => {
  const { server } = fakeServer({});
  registerCommands({ server, setApiKey: () => Promise.resolve() });
  const contributed = manifest.contributes.commands.map((c: { command: string }) => c.command).sort();
  assert.deepEqual(contributed, [...Object.values(Commands), 'ascendc.showLog'].sort());
  for (const c of manifest.contributes.commands) {
    assert.equal(c.category, 'AscendC', c.command);
  }
});

test('the palette titles are the ones the issue names', () => {
  const titles = manifest.contributes.commands.map((c: { category: string; title: string }) => `${c.category}: ${c.title}`);
  for (const t of [
    'AscendC: Generate Kernel from Torch Op',
    'AscendC: Validate Kernel',
    'AscendC: Set Reference',
    'AscendC: Show Status',
    'AscendC: Restart Server',
    'AscendC: Set Model API Key',
  ]) {
    assert.ok(titles.includes(t), t);
  }
});

test('a command acts on the file a menu or a code lens passed, else on the active kernel editor', () => {
  const menu = vscode.Uri.file('/p/op_kernel/add.cpp');
  assert.equal(targetUri(menu, undefined, isKernelSource), menu);
  const doc = stub.document('/p/k.cpp', '#include "kernel_operator.h"') as unknown as vscode.TextDocument;
  assert.equal(targetUri(undefined, doc, isKernelSource)?.fsPath, '/p/k.cpp');
  assert.equal(targetUri({ uri: 'file:///p/op_kernel/add.cpp' }, undefined, isKernelSource)?.fsPath, '/p/op_kernel/add.cpp');
  const other = stub.document('/p/main.cpp', 'int main() {}') as unknown as vscode.TextDocument;
  assert.equal(targetUri(undefined, other, isKernelSource), undefined);
});

test('Validate Kernel sends the kernel URI and reports ✓ passed/total', async () => {
  const { server, sent } = fakeServer({ 'kernelgen.validate': { ok: true, passed: 6, total: 6 } });
  registerCommands({ server, setApiKey: () => Promise.resolve() });
  stub.window.activeTextEditor = { document: stub.document('/p/op_kernel/add.cpp', '') };
  await vscode.commands.executeCommand(Commands.validateKernel);
  assert.deepEqual(sent, [{ command: 'kernelgen.validate', argument: { uri: 'file:///p/op_kernel/add.cpp' } }]);
  const info = stub.calls.find((c) => c.api === 'showInformationMessage');
  assert.equal(info?.args[0], 'AscendC: add.cpp passed validation ✓ 6/6');
});

test('Validate Kernel outside a kernel file explains instead of calling the server', async () => {
  const { server, sent } = fakeServer({});
  registerCommands({ server, setApiKey: () => Promise.resolve() });
  await vscode.commands.executeCommand(Commands.validateKernel);
  assert.equal(sent.length, 0);
  assert.match(String(stub.calls.find((c) => c.api === 'showWarningMessage')?.args[0]), /open an AscendC kernel file/);
});

test('Set Reference sends the kernel and the picked Python file', async () => {
  const { server, sent } = fakeServer({ 'kernelgen.setReference': null });
  registerCommands({ server, setApiKey: () => Promise.resolve() });
  stub.answers.push([vscode.Uri.file('/p/ref.py')]);
  await vscode.commands.executeCommand(Commands.setReference, vscode.Uri.file('/p/op_kernel/add.cpp'));
  assert.deepEqual(sent, [
    { command: 'kernelgen.setReference', argument: { uri: 'file:///p/op_kernel/add.cpp', reference: 'file:///p/ref.py' } },
  ]);
});

test('Restart Server restarts the server', async () => {
  const fake = fakeServer({});
  registerCommands({ server: fake.server, setApiKey: () => Promise.resolve() });
  await vscode.commands.executeCommand(Commands.restartServer);
  assert.equal(fake.restarts(), 1);
});

test('validation and status lines read as sentences', () => {
  assert.equal(
    describeValidation({ ok: false, rule: 'datacopy-align' }, 'add.cpp'),
    'AscendC: add.cpp failed validation ✗ datacopy-align',
  );
  assert.match(describeValidation(null, 'add.cpp'), /no validation result/);
  assert.equal(
    describeValidation({ ok: true, compile: { ok: true }, cases: [] }, 'add.cpp'),
    'AscendC: add.cpp compiles; set a reference ("AscendC: Set Reference") to run it.',
  );
  assert.equal(
    describeStatus({ version: '0.1.0', chip: 'ascend910b2', completion: { backend: 'llm', reachable: false }, message: 'model server unreachable' }),
    'AscendC server 0.1.0: running, chip ascend910b2, completion llm (unreachable). model server unreachable',
  );
});

test("Generate shows the generated kernel's validation in the status bar", async () => {
  const validation = { ok: true, passed: 3, total: 3 };
  const { server, sent } = fakeServer({ 'kernelgen.generateKernel': { ok: true, op: 'gelu', project: null, validation } });
  const shown: unknown[] = [];
  registerCommands({ server, setApiKey: () => Promise.resolve(), showValidation: (v) => shown.push(v) });
  await vscode.commands.executeCommand(Commands.generateKernel, vscode.Uri.file('/ws/gelu.py'));
  assert.equal(sent[0].command, 'kernelgen.generateKernel');
  assert.deepEqual(shown, [validation]);
});
