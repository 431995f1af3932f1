import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import detection from './fixtures/polyglot-detect.json';
import pythonLint from './fixtures/python-lint.json';
import pythonTest from './fixtures/python-test.json';
import {
  type Detection,
  detectedLanguages,
  failureItems,
  renderResult,
  resolveFile,
  type RunResult,
  summary,
} from '../src/lib/results';

// Captured from lintel's own fixture workspaces (tests/workspaces/python, polyglot); durations pinned.
const testRun: RunResult = { ...(pythonTest as RunResult), durationMs: 2900 };
const lintRun: RunResult = { ...(pythonLint as RunResult), durationMs: 17 };

function result(change: Partial<RunResult>): RunResult {
  return { ...testRun, failures: [], issues: [], ok: true, ...change };
}

describe('summary', () => {
  it('counts failed tests', () => {
    assert.equal(summary(testRun), 'python test: 1 failed (2.9s)');
  });

  it('counts issues', () => {
    assert.equal(summary(lintRun), 'python lint: 5 issues (0.0s)');
    const mixed = result({
      check: 'lint',
      ok: false,
      issues: [lintRun.issues[0]!, { ...lintRun.issues[1]!, severity: 'warning' }],
    });
    assert.match(summary(mixed), /: 2 issues, 1 error /);
  });

  it('says passed, clean, timed out or not checked', () => {
    assert.equal(summary(result({ durationMs: 1234 })), 'python test: passed (1.2s)');
    assert.equal(summary(result({ check: 'typecheck', failures: undefined })), 'python typecheck: clean (2.9s)');
    assert.equal(summary(result({ timedOut: true, exitCode: 124, ok: false })), 'python test: timed out (2.9s)');
    const missing = result({ ok: false, status: 'not_checked', reason: 'mypy: not found on PATH' });
    assert.equal(summary(missing), 'python test: not checked — mypy: not found on PATH (2.9s)');
    const unused = result({ ok: true, status: 'not_configured', reason: 'no type checker in this project' });
    assert.equal(summary(unused), 'python test: not configured — no type checker in this project');
    const unread = result({ check: 'lint', failures: undefined, status: 'passed' });
    assert.equal(summary(unread), 'python lint: passed (output not parsed) (2.9s)');
  });
});

describe('renderResult', () => {
  const text = renderResult(lintRun);

  it('shows the command line, each issue at its place, and the output last', () => {
    const lines = text.split('\n');
    assert.equal(lines[0], 'python lint: 5 issues (0.0s)');
    assert.equal(lines[1], `  $ ${lintRun.argv.join(' ')}`);
    assert.ok(lines.includes('  src/inventory/models.py:3:8: error ruff: [F401] `os` imported but unused'), text);
    assert.ok(text.endsWith(lintRun.output.trimEnd()));
  });

  it('lists failed tests with their place and first message line', () => {
    assert.ok(
      renderResult(testRun).includes(
        '  FAILED tests/test_models.py::test_total_value_counts_quantity (tests/test_models.py:13): ' +
          'AssertionError: stock of 2 items should be worth 2.5',
      ),
    );
  });
});

describe('failureItems', () => {
  it('resolves files against the workspace folder and makes lines 0-based', () => {
    assert.deepEqual(failureItems(testRun, '/work/app'), [
      {
        label: 'tests/test_models.py::test_total_value_counts_quantity',
        description: 'tests/test_models.py:13',
        detail: 'AssertionError: stock of 2 items should be worth 2.5',
        file: '/work/app/tests/test_models.py',
        line: 12,
      },
    ]);
  });

  it('copes with failures without a place or message', () => {
    const items = failureItems(result({ failures: [{ name: 'TestMain', message: '' }] }), '/work/app');
    assert.deepEqual(items, [
      { label: 'TestMain', description: undefined, detail: '(no message)', file: undefined, line: undefined },
    ]);
  });

  it('keeps absolute paths', () => {
    assert.equal(resolveFile('/tmp/x_test.go', '/work/app'), '/tmp/x_test.go');
  });
});

describe('detectedLanguages', () => {
  it('collects the languages of every folder once', () => {
    const polyglot = detection as Detection;
    assert.deepEqual(detectedLanguages([polyglot, null, polyglot]), ['go', 'node']);
  });
});
