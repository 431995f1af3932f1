/**
 * The launch configuration that debugs one discovered test with the debug adapter of its language, when that
 * adapter's extension is installed: debugpy for python (pytest), the Go extension's `mode: test`, and VS Code's
 * built-in node debugger running the project's JS test runner. Rust has none: the Debug profile is not offered there.
 */
import * as path from 'node:path';
import { filePath, type TestRecord } from './testTree';

/** The extensions whose debug adapter a language's Debug profile needs (any one of them). */
export const DEBUG_EXTENSIONS: Readonly<Record<string, readonly string[]>> = {
  python: ['ms-python.debugpy', 'ms-python.python'],
  go: ['golang.go'],
  node: ['ms-vscode.js-debug', 'ms-vscode.js-debug-nightly'],
};

export interface DebugTarget {
  record: TestRecord;
  /** The project's root on disk. */
  projectRoot: string;
  /** The project's package.json dependencies (node only), to tell its runner. */
  dependencies?: Readonly<Record<string, unknown>>;
}

export type DebugConfiguration = { type: string; request: 'launch'; name: string } & Record<string, unknown>;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function python(target: DebugTarget): DebugConfiguration {
  const { record } = target;
  return {
    type: 'debugpy',
    request: 'launch',
    name: `Debug ${record.label}`,
    module: 'pytest',
    args: [record.id],
    cwd: target.projectRoot,
    justMyCode: false,
  };
}

/** `-test.run` of a go id `<import path>.TestX[/sub]`: each level anchored, as go matches them one by one. */
export function goRunPattern(id: string): string {
  // The import path has dots and slashes of its own: the name starts at the first `.Test…` (`.Benchmark…`…).
  const start = /\.(?:Test|Benchmark|Example|Fuzz)/.exec(id)?.index ?? id.lastIndexOf('.');
  const levels = id.slice(start + 1).split('/');
  return levels.map((level) => `^${escapeRegExp(level)}$`).join('/');
}

function go(target: DebugTarget): DebugConfiguration {
  const { record } = target;
  const file = filePath(record);
  const args = record.kind === 'file' ? [] : ['-test.run', goRunPattern(record.id)];
  return {
    type: 'go',
    request: 'launch',
    name: `Debug ${record.label}`,
    mode: 'test',
    program: path.dirname(file),
    args,
  };
}

/** The runner's argv (after `node`) for one test of a node project: vitest, jest or mocha from its dependencies,
 * else node's own test runner. */
export function nodeRunnerArgs(target: DebugTarget): string[] {
  const { record } = target;
  const file = filePath(record);
  const deps = target.dependencies ?? {};
  const bin = (name: string, script: string): string => path.join(target.projectRoot, 'node_modules', name, script);
  // Ids are `suite > test`; the runners match the titles joined by spaces (node's own, each test's title alone).
  const titles = record.id.split(' > ');
  const filter = (flag: string, own = false): string[] => {
    if (record.kind === 'file') {
      return [];
    }
    return [flag, escapeRegExp(own ? (titles[titles.length - 1] ?? record.id) : titles.join(' '))];
  };
  if ('vitest' in deps) {
    return [bin('vitest', 'vitest.mjs'), 'run', file, ...filter('-t'), '--no-file-parallelism'];
  }
  if ('jest' in deps) {
    return [bin('jest', 'bin/jest.js'), '--runInBand', file, ...filter('-t')];
  }
  if ('mocha' in deps) {
    return [bin('mocha', 'bin/mocha.js'), file, ...filter('--grep')];
  }
  return ['--test', ...filter('--test-name-pattern', true), file];
}

function node(target: DebugTarget): DebugConfiguration {
  const [program, ...args] = nodeRunnerArgs(target);
  const launch = program === '--test' ? { runtimeArgs: [program, ...args] } : { program, args };
  return {
    type: 'node',
    request: 'launch',
    name: `Debug ${target.record.label}`,
    cwd: target.projectRoot,
    console: 'integratedTerminal',
    ...launch,
  };
}

const BUILDERS: Readonly<Record<string, (target: DebugTarget) => DebugConfiguration>> = { python, go, node };

/** The launch configuration debugging a test, or undefined for a language without one. */
export function debugConfiguration(target: DebugTarget): DebugConfiguration | undefined {
  return BUILDERS[target.record.language]?.(target);
}
