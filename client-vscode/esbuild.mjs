// Bundles the extension and vscode-languageclient into dist/extension.js (the .vsix ships no
// node_modules). `--watch` rebuilds on change.
import * as esbuild from 'esbuild';

const options = {
  entryPoints: ['src/extension.ts'],
  bundle: true,
  outfile: 'dist/extension.js',
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['vscode'],
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
};

if (process.argv.includes('--watch')) {
  await (await esbuild.context({ ...options, minify: false, sourcemap: 'inline' })).watch();
} else {
  await esbuild.build(options);
}
