import * as assert from 'node:assert/strict';
import { beforeEach, test } from 'node:test';
import type * as vscode from 'vscode';
import { ApiKeyStore, promptForApiKey } from '../src/secrets';
import { StatusBar } from '../src/statusBar';
import * as stub from './stub/vscode';

beforeEach(() => stub.reset());

test('the status bar item opens the log and follows the client and server states', () => {
  const bar = new StatusBar();
  const item = stub.window.statusBarItems.at(-1)!;
  assert.equal(item.command, 'ascendc.showLog');
  bar.setClientState('running');
  bar.setServerStatus({ state: 'ready', validation: { ok: false, rule: 'datacopy-align' } });
  assert.equal(item.text, '$(circuit-board) AscendC ✗ datacopy-align');
  bar.setServerStatus({ state: 'linting' });
  assert.equal(item.text, '$(sync~spin) AscendC ✗ datacopy-align', 'a later status keeps the last validation');
  bar.setClientState('failed');
  assert.equal(item.text, '$(error) AscendC');
  assert.equal(item.backgroundColor?.id, 'statusBarItem.errorBackground');
});

test('a completion fallback flags the backend unreachable and keeps the last validation', () => {
  const bar = new StatusBar();
  const item = stub.window.statusBarItems.at(-1)!;
  bar.setClientState('running');
  bar.setServerStatus({ completion: { backend: 'llm', reachable: true } });
  bar.setServerStatus({ state: 'passed', validation: { ok: true, passed: 6, total: 6 } });
  bar.setServerStatus({ state: 'completion-fallback', message: 'model server unavailable (ConnectError); using the embedded engine' });
  assert.equal(item.text, '$(circuit-board) AscendC ✓ 6/6 $(debug-disconnect)');
  assert.match(item.tooltip ?? '', /Completion: llm, unreachable/);
  assert.match(item.tooltip ?? '', /model server unavailable/);
});

/** SecretStorage in memory. */
function memorySecrets() {
  const data = new Map<string, string>();
  const emitter = new stub.EventEmitter<{ key: string }>();
  const secrets = {
    get: (k: string) => Promise.resolve(data.get(k)),
    store: (k: string, v: string) => {
      data.set(k, v);
      emitter.fire({ key: k });
      return Promise.resolve();
    },
    delete: (k: string) => {
      data.delete(k);
      emitter.fire({ key: k });
      return Promise.resolve();
    },
    onDidChange: emitter.event,
  };
  return { data, secrets: secrets as unknown as vscode.SecretStorage };
}

test('the API key is stored in SecretStorage from a password box; empty removes it', async () => {
  const { data, secrets } = memorySecrets();
  const store = new ApiKeyStore(secrets);
  stub.answers.push(' sk-123 ');
  assert.equal(await promptForApiKey(store, 'http://h/v1'), true);
  assert.equal(data.get('kernelgen.llm.apiKey'), 'sk-123');
  const box = stub.calls.find((c) => c.api === 'showInputBox')?.args[0] as { password: boolean; prompt: string };
  assert.equal(box.password, true);
  assert.match(box.prompt, /http:\/\/h\/v1/);
  stub.answers.push('');
  await promptForApiKey(store, '');
  assert.equal(data.has('kernelgen.llm.apiKey'), false);
});

test('cancelling the password box keeps the stored key', async () => {
  const { data, secrets } = memorySecrets();
  data.set('kernelgen.llm.apiKey', 'old');
  assert.equal(await promptForApiKey(new ApiKeyStore(secrets), ''), false);
  assert.equal(data.get('kernelgen.llm.apiKey'), 'old');
});

test('only changes of the API key are reported', async () => {
  const { secrets } = memorySecrets();
  const store = new ApiKeyStore(secrets);
  let changes = 0;
  store.onDidChange(() => (changes += 1));
  await secrets.store('other', 'x');
  await store.set('k');
  assert.equal(changes, 1);
});
