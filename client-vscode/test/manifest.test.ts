import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { KERNEL_EXTENSIONS } from '../src/kernelFiles';

const root = path.join(__dirname, '..', '..');
const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

test('the extension and the Python server carry the same version', () => {
  const pyproject = fs.readFileSync(path.join(root, '..', 'pyproject.toml'), 'utf8');
  const version = /^version\s*=\s*"([^"]+)"/m.exec(pyproject)?.[1];
  assert.equal(manifest.version, version);
});

test('the extension activates on C/C++ and Python files and on kernel projects', () => {
  for (const e of ['onLanguage:cpp', 'onLanguage:c', 'onLanguage:python', 'workspaceContains:**/op_kernel/*.cpp']) {
    assert.ok(manifest.activationEvents.includes(e), e);
  }
  assert.deepEqual(manifest.contributes.languages, [{ id: 'cpp', extensions: ['.asc'] }]);
  assert.deepEqual(KERNEL_EXTENSIONS, ['.cpp', '.h', '.hpp', '.asc']);
});

test('the bundle is the entry point and every dependency is pinned exactly', () => {
  assert.equal(manifest.main, './dist/extension.js');
  for (const deps of [manifest.dependencies, manifest.devDependencies]) {
    for (const [name, version] of Object.entries(deps)) {
      assert.match(String(version), /^\d+\.\d+\.\d+$/, name);
    }
  }
});
