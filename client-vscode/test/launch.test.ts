import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { expandPath, findExecutable, preflight, readmeOf, serverCommand } from '../src/launch';

const none = { kernelgenPath: '', pythonPath: '' };

test('with nothing configured the server is `kernelgen serve` from PATH', () => {
  assert.deepEqual(serverCommand(none), { command: 'kernelgen', args: ['serve'], source: 'path' });
});

test("the Python extension's interpreter runs the CLI module", () => {
  assert.deepEqual(serverCommand({ ...none, pythonExtensionInterpreter: '/venv/bin/python' }), {
    command: '/venv/bin/python',
    args: ['-m', 'server.cli', 'serve'],
    source: 'pythonExtension',
  });
});

test('settings win over the Python extension: kernelgen path first, then python path', () => {
  const inputs = { kernelgenPath: '/opt/kg', pythonPath: '/py', pythonExtensionInterpreter: '/ext/python' };
  assert.equal(serverCommand(inputs).command, '/opt/kg');
  assert.equal(serverCommand({ ...inputs, kernelgenPath: ' ' }).command, '/py');
});

test('~ and ${workspaceFolder} are expanded in paths', () => {
  assert.equal(expandPath('~/bin/kernelgen'), path.join(os.homedir(), 'bin/kernelgen'));
  assert.equal(expandPath('${workspaceFolder}/.venv/bin/python', '/ws'), '/ws/.venv/bin/python');
});

test('findExecutable searches PATH and rejects non-executables', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-'));
  const exe = path.join(dir, 'kernelgen');
  fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(path.join(dir, 'plain'), '', { mode: 0o644 });
  const saved = process.env.PATH;
  process.env.PATH = dir;
  try {
    assert.equal(findExecutable('kernelgen'), exe);
    assert.equal(findExecutable('plain'), undefined);
    assert.equal(findExecutable('missing'), undefined);
  } finally {
    process.env.PATH = saved;
  }
});

test('preflight names a missing executable and where it came from', async () => {
  const problem = await preflight({ command: '/nonexistent/kernelgen', args: ['serve'], source: 'kernelgenPath' });
  assert.match(problem ?? '', /`\/nonexistent\/kernelgen` \(the `kernelgen.server.path` setting\) was not found/);
});

test('preflight says when a Python lacks ascend-kernelgen', async (t) => {
  const python = findExecutable('python3');
  if (!python) {
    t.skip('no python3 on PATH');
    return;
  }
  // A Python that sees no site-packages (`-S`): the one running the tests may well have
  // ascend-kernelgen installed, as CI's virtual environment does. The test runs from
  // client-vscode/, where `server` is not importable from the working directory either.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-bare-'));
  const bare = path.join(dir, 'python3');
  fs.writeFileSync(bare, `#!/bin/sh\nexec '${python}' -S "$@"\n`, { mode: 0o755 });
  const problem = await preflight({ command: bare, args: ['-m', 'server.cli', 'serve'], source: 'pythonPath' });
  assert.match(problem ?? '', /does not have ascend-kernelgen installed \(.*No module named 'server'/);
});

test('preflight says when the installed ascend-kernelgen has no language server', async (t) => {
  const python = findExecutable('python3');
  if (!python) {
    t.skip('no python3 on PATH');
    return;
  }
  // A `server` package with a CLI but without `commands/serve.py`: an older ascend-kernelgen.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-old-'));
  fs.mkdirSync(path.join(dir, 'server', 'commands'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'server', '__init__.py'), '');
  fs.writeFileSync(path.join(dir, 'server', 'cli.py'), '');
  fs.writeFileSync(path.join(dir, 'server', 'commands', '__init__.py'), '');
  const saved = process.env.PYTHONPATH;
  process.env.PYTHONPATH = dir;
  try {
    const problem = await preflight({ command: python, args: ['-m', 'server.cli', 'serve'], source: 'pythonExtension' });
    assert.match(problem ?? '', /has no language server \(`kernelgen serve`\): update it/);
    assert.match(problem ?? '', /the Python extension's selected interpreter/);
  } finally {
    if (saved === undefined) {
      delete process.env.PYTHONPATH;
    } else {
      process.env.PYTHONPATH = saved;
    }
  }
});

test('the install instructions are found under the name vsce gives the README', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kg-ext-'));
  assert.equal(readmeOf(dir), undefined);
  fs.writeFileSync(path.join(dir, 'readme.md'), '# x');
  assert.equal(readmeOf(dir), path.join(dir, 'readme.md'));
});
