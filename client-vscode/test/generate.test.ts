import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { beforeEach, test } from 'node:test';
import * as vscode from 'vscode';
import { KernelgenServer, WorkDoneProgressValue } from '../src/api';
import { describeResult, generateKernel, kernelFileOf, progressReporter } from '../src/generate';
import * as stub from './stub/vscode';

/** A server whose generate request the test resolves, recording what it was asked. */
function fakeServer(answer: Promise<unknown>) {
  const sent: { command: string; argument: object; workDoneToken?: string }[] = [];
  const progress = new Map<string, (v: WorkDoneProgressValue) => void>();
  const cancelled: string[] = [];
  const server: KernelgenServer = {
    execute: <T>(command: string, argument: object, _t?: unknown, workDoneToken?: string) => {
      sent.push({ command, argument, workDoneToken });
      return answer as Promise<T>;
    },
    onProgress: (token, handler) => {
      progress.set(token, handler);
      return new vscode.Disposable(() => progress.delete(token));
    },
    cancelProgress: (token) => cancelled.push(token),
    restart: () => Promise.resolve(),
    showLog: () => undefined,
    log: () => undefined,
  };
  return { server, sent, progress, cancelled };
}

function projectDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-gen-'));
  fs.mkdirSync(path.join(dir, 'op_kernel'));
  fs.writeFileSync(path.join(dir, 'op_kernel', 'gelu.cpp'), '#include "kernel_operator.h"\n');
  return dir;
}

beforeEach(() => stub.reset());

test('server percentages become withProgress increments, report messages pass through', () => {
  const reports: unknown[] = [];
  const report = progressReporter({ report: (v) => reports.push(v) });
  report({ kind: 'begin', title: 'generate', message: 'gelu.py', percentage: 0 });
  report({ kind: 'report', message: 'capture', percentage: 20 });
  report({ kind: 'report', message: 'validate', percentage: 70 });
  report({ kind: 'end', message: 'done' });
  assert.deepEqual(reports, [
    { message: 'capture', increment: 20 },
    { message: 'validate', increment: 50 },
  ]);
});

test('the kernel of a generated project is op_kernel/<op>.cpp', () => {
  const dir = projectDir();
  assert.equal(kernelFileOf({ ok: true, op: 'gelu', project: dir }), path.join(dir, 'op_kernel', 'gelu.cpp'));
  assert.equal(kernelFileOf({ ok: true, op: 'other', project: dir }), path.join(dir, 'op_kernel', 'gelu.cpp'));
  assert.equal(kernelFileOf({ ok: false, project: null }), undefined);
});

test('the outcome line names the op, the validation and the modelled speed-up', () => {
  const line = describeResult(
    { ok: true, op: 'gelu', validation: { ok: true, passed: 3, total: 3 }, speed: { speedup: 1.234 } },
    'gelu.py',
  );
  assert.equal(line, 'AscendC: generated gelu from gelu.py, validation ✓ 3/3, modelled 1.23x vs eager.');
  assert.match(describeResult({ ok: false, error: 'op aten.foo is not supported' }, 's.py'), /no kernel generated from s.py: op aten.foo/);
});

test('generate sends the stub with a work-done token, shows progress and opens the kernel', async () => {
  const dir = projectDir();
  let finish!: (v: unknown) => void;
  const { server, sent, progress } = fakeServer(new Promise((r) => (finish = r)));
  const done = generateKernel(server, vscode.Uri.file('/ws/gelu.py'));
  await new Promise((r) => setImmediate(r));
  assert.equal(sent.length, 1);
  assert.equal(sent[0].command, 'kernelgen.generateKernel');
  assert.deepEqual(sent[0].argument, { uri: 'file:///ws/gelu.py' });
  const token = sent[0].workDoneToken!;
  progress.get(token)!({ kind: 'report', message: 'lowering', percentage: 40 });
  assert.deepEqual(stub.progress.reports, [{ message: 'lowering', increment: 40 }]);
  assert.deepEqual(stub.progress.options, {
    location: vscode.ProgressLocation.Notification,
    title: 'AscendC: generating a kernel from gelu.py',
    cancellable: true,
  });
  finish({ ok: true, op: 'gelu', project: dir });
  await done;
  const shown = stub.calls.find((c) => c.api === 'showTextDocument');
  assert.equal((shown?.args[0] as vscode.Uri).fsPath, path.join(dir, 'op_kernel', 'gelu.cpp'));
  assert.equal(progress.size, 0, 'the progress listener is disposed');
});

test('a kernel the server already showed is not opened twice', async () => {
  const dir = projectDir();
  stub.window.visibleTextEditors = [{ document: { uri: stub.Uri.file(path.join(dir, 'op_kernel', 'gelu.cpp')) } }];
  const { server } = fakeServer(Promise.resolve({ ok: true, op: 'gelu', project: dir }));
  await generateKernel(server, vscode.Uri.file('/ws/gelu.py'));
  assert.ok(!stub.calls.some((c) => c.api === 'showTextDocument'));
});

test('cancel closes the notification at once and cancels the server progress', async () => {
  const { server, sent, cancelled } = fakeServer(new Promise(() => undefined));
  const done = generateKernel(server, vscode.Uri.file('/ws/gelu.py'));
  await new Promise((r) => setImmediate(r));
  stub.progress.source.cancel();
  await done;
  const info = stub.calls.find((c) => c.api === 'showInformationMessage');
  assert.equal(info?.args[0], 'AscendC: generation from gelu.py cancelled.');
  assert.deepEqual(cancelled, [sent[0].workDoneToken]);
  assert.ok(!stub.calls.some((c) => c.api === 'showTextDocument'));
});

test('a failed generation is an error with a way to the log', async () => {
  const { server } = fakeServer(Promise.resolve({ ok: false, error: 'validation failed: ub-overflow' }));
  await generateKernel(server, vscode.Uri.file('/ws/gelu.py'));
  const err = stub.calls.find((c) => c.api === 'showErrorMessage');
  assert.deepEqual(err?.args, ['AscendC: no kernel generated from gelu.py: validation failed: ub-overflow.', 'Show Log']);
});

test('a code lens output folder is passed on to the server', async () => {
  const { server, sent } = fakeServer(Promise.resolve({ ok: false, error: 'x' }));
  await generateKernel(server, vscode.Uri.file('/ws/gelu.py'), '/ws/gelu_kernel');
  assert.deepEqual(sent[0].argument, { uri: 'file:///ws/gelu.py', outDir: '/ws/gelu_kernel' });
});

test('a generation the server refuses is an error message, not a failed command', async () => {
  const { server } = fakeServer(Promise.reject(new Error('generation could not run: no torch')));
  const result = await generateKernel(server, vscode.Uri.file('/ws/gelu.py'));
  assert.equal(result, undefined);
  const err = stub.calls.find((c) => c.api === 'showErrorMessage');
  assert.deepEqual(err?.args, ['AscendC: generation from gelu.py did not run: generation could not run: no torch', 'Show Log']);
});
