import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import pythonTest from './fixtures/python-test.json';
import { type RunResult } from '../src/lib/results';
import { debugConfiguration, goRunPattern, nodeRunnerArgs } from '../src/lib/testDebug';
import { comparison } from '../src/lib/testMessages';
import { failureOf, planOutcome } from '../src/lib/testOutcomes';
import { buildTree, byFile, planProjects, planRuns, type TestNode, type TestRecord } from '../src/lib/testTree';

const RANGE = { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } };

function record(id: string, kind: TestRecord['kind'], parent?: string, over: Partial<TestRecord> = {}): TestRecord {
  const file = id.split('::')[0] ?? id;
  return {
    id,
    label: id.split('::').pop() ?? id,
    kind,
    file,
    uri: `file:///w/${file}`,
    range: RANGE,
    project: '.',
    language: 'python',
    ...(parent === undefined ? {} : { parent }),
    ...over,
  };
}

// As lintel.discoverTests answers for tests/workspaces/python (file first, suites before their tests).
const MODELS = 'tests/test_models.py';
const RECORDS: TestRecord[] = [
  record(MODELS, 'file'),
  record(`${MODELS}::test_total_value_counts_quantity`, 'test', MODELS),
  record(`${MODELS}::TestItem`, 'suite', MODELS),
  record(`${MODELS}::TestItem::test_tags`, 'test', `${MODELS}::TestItem`),
  record(`${MODELS}::TestItem::test_p`, 'test', `${MODELS}::TestItem`),
  record('tests/test_pricing.py', 'file'),
  record('tests/test_pricing.py::test_label_mentions_note', 'test', 'tests/test_pricing.py'),
];

function find(nodes: TestNode[], id: string): TestNode {
  for (const node of nodes) {
    if (node.record.id === id) {
      return node;
    }
    const inside = node.children.length > 0 ? findOrUndefined(node.children, id) : undefined;
    if (inside) {
      return inside;
    }
  }
  throw new Error(`${id} not in the tree`);
}

function findOrUndefined(nodes: TestNode[], id: string): TestNode | undefined {
  try {
    return find(nodes, id);
  } catch {
    return undefined;
  }
}

const testRun = pythonTest as RunResult;

describe('buildTree', () => {
  it('nests file → suite → test by parent, in order', () => {
    const roots = buildTree(RECORDS);
    assert.deepEqual(
      roots.map((r) => r.record.id),
      [MODELS, 'tests/test_pricing.py'],
    );
    const models = roots[0]!;
    assert.deepEqual(
      models.children.map((c) => c.record.label),
      ['test_total_value_counts_quantity', 'TestItem'],
    );
    assert.deepEqual(
      models.children[1]!.children.map((c) => c.record.label),
      ['test_tags', 'test_p'],
    );
  });

  it('keys by file URI and id, so two projects with the same relative file stay apart', () => {
    const other = RECORDS.slice(0, 2).map((r) => ({ ...r, uri: r.uri.replace('/w/', '/w/api/'), project: 'api' }));
    const roots = buildTree([...RECORDS, ...other]);
    assert.equal(roots.length, 3);
    assert.equal(new Set(roots.map((r) => r.key)).size, 3);
    assert.equal(roots[2]!.children.length, 1);
  });

  it('makes a record whose parent is missing a root', () => {
    const roots = buildTree([record(`${MODELS}::TestItem::test_tags`, 'test', `${MODELS}::TestItem`)]);
    assert.equal(roots.length, 1);
  });

  it('groups records by file (a testsChanged replaces one file)', () => {
    assert.deepEqual([...byFile(RECORDS).keys()], [`file:///w/${MODELS}`, 'file:///w/tests/test_pricing.py']);
  });
});

describe('planRuns', () => {
  const roots = buildTree(RECORDS);

  it('runs a file as {path}', () => {
    assert.deepEqual(
      planRuns([roots[0]!]).map((p) => p.args),
      [{ language: 'python', path: `/w/${MODELS}` }],
    );
  });

  it("runs a project's tests and suites in one call with their ids", () => {
    const picked = [find(roots, `${MODELS}::TestItem`), find(roots, 'tests/test_pricing.py::test_label_mentions_note')];
    assert.deepEqual(
      planRuns(picked).map((p) => p.args),
      [
        {
          language: 'python',
          path: `/w/${MODELS}`,
          tests: [`${MODELS}::TestItem`, 'tests/test_pricing.py::test_label_mentions_note'],
        },
      ],
    );
  });

  it('leaves out a node a requested file already runs, and keeps projects apart', () => {
    const other = record('tests/test_x.py::test_y', 'test', undefined, { uri: 'file:///w/api/tests/test_x.py' });
    const picked = [roots[0]!, find(roots, `${MODELS}::TestItem::test_tags`), ...buildTree([other])];
    const plans = planRuns(picked);
    assert.deepEqual(
      plans.map((p) => p.args),
      [
        { language: 'python', path: `/w/${MODELS}` },
        { language: 'python', path: '/w/api/tests/test_x.py', tests: ['tests/test_x.py::test_y'] },
      ],
    );
  });
});

describe('planProjects', () => {
  it('runs each project whole, once, whatever number of files it has', () => {
    const other = record('tests/test_x.py', 'file', undefined, {
      uri: 'file:///w/api/tests/test_x.py',
      project: 'api',
    });
    const roots = buildTree([...RECORDS, other]);
    const plans = planProjects(roots, (r) => `/w/${r.project}`);
    assert.deepEqual(
      plans.map((p) => [p.args, p.nodes.length]),
      [
        [{ language: 'python', path: '/w/.' }, 2],
        [{ language: 'python', path: '/w/api' }, 1],
      ],
    );
  });
});

describe('planOutcome', () => {
  const roots = buildTree(RECORDS);
  const failing = record(`${MODELS}::test_total_value_counts_quantity`, 'test', MODELS);

  it('fails the test the failure names, passes the others the run ran', () => {
    const [plan] = planRuns([roots[0]!]);
    const { outcomes, unmatched } = planOutcome(plan!, testRun);
    const states = outcomes.map((o) => [o.node.record.id, o.state]);
    assert.deepEqual(states, [
      [failing.id, 'failed'],
      [`${MODELS}::TestItem::test_tags`, 'passed'],
      [`${MODELS}::TestItem::test_p`, 'passed'],
    ]);
    const failed = outcomes[0]!;
    assert.equal(failed.state === 'failed' && failed.failures[0]?.line, 13);
    assert.deepEqual(unmatched, []);
  });

  it('gives a parametrised case or a subtest to the test it belongs to', () => {
    assert.ok(failureOf('t.py::test_p', 't.py::test_p[1-2]'));
    assert.ok(failureOf('example.com/m.TestX', 'example.com/m.TestX/case_one'));
    assert.ok(!failureOf('t.py::test_p', 't.py::test_pq'));
    const [plan] = planRuns([find(roots, `${MODELS}::TestItem`)]);
    const failures = [{ name: `${MODELS}::TestItem::test_p[2]`, message: 'assert 1 == 2' }];
    const { outcomes } = planOutcome(plan!, { ...testRun, failures });
    assert.deepEqual(
      outcomes.map((o) => o.state),
      ['passed', 'failed'],
    );
  });

  it('keeps a failure that names no planned test for the output', () => {
    const [plan] = planRuns([find(roots, 'tests/test_pricing.py::test_label_mentions_note')]);
    const { outcomes, unmatched } = planOutcome(plan!, testRun);
    assert.deepEqual(
      outcomes.map((o) => o.state),
      ['passed'],
    );
    assert.equal(unmatched[0]?.name, failing.id);
  });

  it('errors every test of a run that timed out, was not checked, or failed without a failing test', () => {
    const [plan] = planRuns([roots[1]!]);
    const cases: Partial<RunResult>[] = [
      { timedOut: true },
      { status: 'not_checked', reason: 'pytest is not installed' },
      { ok: false, failures: [], issues: [{ ...testRun.issues[0]!, message: 'ImportError: no module x' }] },
    ];
    const messages = cases.map((change) => {
      const [outcome] = planOutcome(plan!, { ...testRun, ...change }).outcomes;
      assert.equal(outcome?.state, 'errored');
      return outcome?.state === 'errored' ? outcome.message : '';
    });
    assert.match(messages[0]!, /timed out/);
    assert.equal(messages[1], 'pytest is not installed');
    assert.match(messages[2]!, /ImportError: no module x/);
  });

  it('passes a test of a clean run', () => {
    const [plan] = planRuns([roots[1]!]);
    const clean = { ...testRun, ok: true, status: 'clean' as const, failures: [], issues: [] };
    assert.deepEqual(
      planOutcome(plan!, clean).outcomes.map((o) => o.state),
      ['passed'],
    );
  });
});

describe('comparison', () => {
  it("reads pytest's assertion: actual on the left", () => {
    const message = testRun.failures![0]!.message;
    assert.deepEqual(comparison(message), { expected: '2.5', actual: '0.75' });
    assert.deepEqual(comparison('E   assert 1 == 2'), { expected: '2', actual: '1' });
  });

  it('reads jest/vitest Expected/Received, expected/actual and Rust left/right', () => {
    const jest = 'expect(received).toBe(expected) // Object.is equality\n\nExpected: 3\nReceived: 2';
    assert.deepEqual(comparison(jest), { expected: '3', actual: '2' });
    const testify = 'Error:      \tNot equal: \n\t            \texpected: 3\n\t            \tactual  : 2';
    assert.deepEqual(comparison(testify), { expected: '3', actual: '2' });
    const rust = 'assertion `left == right` failed\n  left: 1\n right: 2';
    assert.deepEqual(comparison(rust), { expected: '2', actual: '1' });
  });

  it('says nothing when the message does not state both plainly', () => {
    assert.equal(comparison('AssertionError: boom'), undefined);
    assert.equal(comparison('assert x in y'), undefined);
    assert.equal(comparison('assert a == b == c'), undefined);
    assert.equal(comparison('Expected: 3'), undefined);
  });
});

describe('debugConfiguration', () => {
  it('runs pytest on the id under debugpy, in the project root', () => {
    const config = debugConfiguration({ record: RECORDS[1]!, projectRoot: '/w' });
    assert.deepEqual(
      { type: config?.type, module: config?.module, args: config?.args, cwd: config?.cwd },
      { type: 'debugpy', module: 'pytest', args: [`${MODELS}::test_total_value_counts_quantity`], cwd: '/w' },
    );
  });

  it("debugs a go test in its package's folder with an anchored -test.run", () => {
    const go = record('example.com/shop.TestTotal/two_items', 'test', undefined, {
      uri: 'file:///w/shop/store_test.go',
      language: 'go',
    });
    assert.equal(goRunPattern(go.id), '^TestTotal$/^two_items$');
    const config = debugConfiguration({ record: go, projectRoot: '/w' });
    assert.deepEqual(
      { mode: config?.mode, program: config?.program, args: config?.args },
      { mode: 'test', program: '/w/shop', args: ['-test.run', '^TestTotal$/^two_items$'] },
    );
  });

  it("runs the node project's runner with the test's name", () => {
    const node = record('cart > adds (1)', 'test', undefined, { uri: 'file:///w/cart.test.ts', language: 'node' });
    assert.deepEqual(nodeRunnerArgs({ record: node, projectRoot: '/w', dependencies: { vitest: '1' } }), [
      '/w/node_modules/vitest/vitest.mjs',
      'run',
      '/w/cart.test.ts',
      '-t',
      'cart adds \\(1\\)',
      '--no-file-parallelism',
    ]);
    assert.deepEqual(nodeRunnerArgs({ record: node, projectRoot: '/w' }), [
      '--test',
      '--test-name-pattern',
      'adds \\(1\\)',
      '/w/cart.test.ts',
    ]);
    assert.equal(debugConfiguration({ record: { ...node, language: 'rust' }, projectRoot: '/w' }), undefined);
  });
});
