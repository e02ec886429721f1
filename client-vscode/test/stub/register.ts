// Loaded with `node --require` before the tests: `require('vscode')` gets the stub.
import Module = require('module');
import * as path from 'path';

const stub = path.join(__dirname, 'vscode.js');
const mod = Module as unknown as {
  _resolveFilename(request: string, ...rest: unknown[]): string;
};
const resolve = mod._resolveFilename.bind(Module);
mod._resolveFilename = (request: string, ...rest: unknown[]) =>
  request === 'vscode' ? stub : resolve(request, ...rest);
