// Bundles the extension into dist/extension.js (vscode stays external), or with --tests the unit tests into
// out/test/ for `node --test` (`vscode` being test/stubs/vscode.ts) and the real-server driver into out/drive.js.
import { readdirSync } from 'node:fs';
import * as esbuild from 'esbuild';

const tests = process.argv.includes('--tests');
const common = { bundle: true, platform: 'node', target: 'node18', format: 'cjs', logLevel: 'warning' };

if (tests) {
  await esbuild.build({
    ...common,
    entryPoints: readdirSync('test')
      .filter((name) => name.endsWith('.test.ts'))
      .map((name) => `test/${name}`),
    outdir: 'out/test',
    sourcemap: 'inline',
    // The modules that use the editor's API run against a stand-in for it.
    alias: { vscode: './test/stubs/vscode.ts' },
  });
  await esbuild.build({ ...common, entryPoints: ['test/server/drive.ts'], outfile: 'out/drive.js' });
} else {
  await esbuild.build({
    ...common,
    entryPoints: ['src/extension.ts'],
    outfile: 'dist/extension.js',
    external: ['vscode'],
    minify: true,
    sourcemap: false,
  });
}
