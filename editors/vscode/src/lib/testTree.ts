/**
 * The tests `lintel.discoverTests` found, as the Test Explorer's tree (file → suite → test by `parent`), and which
 * `lintel.runTests` calls run a selection of them. Free of VS Code: testing.ts turns nodes into TestItems.
 */
import { fileURLToPath } from 'node:url';

export interface LspPosition {
  line: number;
  character: number;
}

/** One record of `lintel.discoverTests` (or of `lintel/testsChanged`'s `tests`); the range is LSP's, 0-based. */
export interface TestRecord {
  id: string;
  label: string;
  kind: 'file' | 'suite' | 'test';
  /** Relative to the workspace folder. */
  file: string;
  uri: string;
  range: { start: LspPosition; end: LspPosition };
  parent?: string | null;
  /** The project's root, relative to the workspace folder. */
  project: string;
  language: string;
}

export interface TestNode {
  /** Unique in the window: a test's id is unique in its project, and its file names the project. */
  key: string;
  record: TestRecord;
  children: TestNode[];
}

/** The key of a record: its file's URI and its id (two projects may both hold `tests/test_x.py`). */
export function testKey(record: Pick<TestRecord, 'uri' | 'id'>): string {
  return `${record.uri}#${record.id}`;
}

/** The records as trees, in their order: roots are the records without a parent (or whose parent is missing). */
export function buildTree(records: readonly TestRecord[]): TestNode[] {
  const nodes = new Map<string, TestNode>();
  for (const record of records) {
    nodes.set(testKey(record), { key: testKey(record), record, children: [] });
  }
  const roots: TestNode[] = [];
  for (const node of nodes.values()) {
    const parentId = node.record.parent;
    const parent = parentId ? nodes.get(testKey({ uri: node.record.uri, id: parentId })) : undefined;
    if (parent !== undefined && parent !== node) {
      parent.children.push(node);
    } else {
      roots.push(node);
    }
  }
  return roots;
}

/** The records grouped by file URI, in their order (a `lintel/testsChanged` replaces one file's). */
export function byFile(records: readonly TestRecord[]): Map<string, TestRecord[]> {
  const files = new Map<string, TestRecord[]>();
  for (const record of records) {
    const list = files.get(record.uri) ?? [];
    list.push(record);
    files.set(record.uri, list);
  }
  return files;
}

/** A node and everything below it. */
export function descendants(node: TestNode): TestNode[] {
  return [node, ...node.children.flatMap(descendants)];
}

/** The tests a run of `node` reports on: it and every test below it (suites and files get their state from those). */
export function testsUnder(node: TestNode): TestNode[] {
  return descendants(node).filter((n) => n.record.kind === 'test');
}

/** The arguments of one `lintel.runTests` call and the requested nodes it runs. */
export interface RunPlan {
  args: { language: string; path: string; tests?: string[] };
  nodes: TestNode[];
}

export function filePath(record: Pick<TestRecord, 'uri'>): string {
  return fileURLToPath(record.uri);
}

/**
 * The runTests calls of a request: a file node runs as `{path: file}`; the tests and suites of one project run in one
 * call `{path: <a file of theirs>, tests: [ids]}` (`path` picks the project). A node under another requested node is
 * run by that one. Each call names its language: a folder may hold a python and a node project at one root.
 */
export function planRuns(requested: readonly TestNode[]): RunPlan[] {
  const under = new Set(
    requested.flatMap((node) =>
      descendants(node)
        .slice(1)
        .map((n) => n.key),
    ),
  );
  const plans: RunPlan[] = [];
  const grouped = new Map<string, RunPlan>();
  for (const node of requested) {
    if (under.has(node.key)) {
      continue;
    }
    const { record } = node;
    if (record.kind === 'file') {
      plans.push({ args: { language: record.language, path: filePath(record) }, nodes: [node] });
      continue;
    }
    const project = `${record.language}\u0000${projectOf(record)}`;
    let plan = grouped.get(project);
    if (plan === undefined) {
      plan = { args: { language: record.language, path: filePath(record), tests: [] }, nodes: [] };
      grouped.set(project, plan);
      plans.push(plan);
    }
    plan.args.tests?.push(record.id);
    plan.nodes.push(node);
  }
  return plans;
}

/**
 * The runTests calls of "run everything": the whole suite of each project the nodes are in (`{path: <its root>}`, one
 * runner process for all its files rather than one per file). `rootOf` gives a record's project root on disk.
 */
export function planProjects(nodes: readonly TestNode[], rootOf: (record: TestRecord) => string): RunPlan[] {
  const grouped = new Map<string, RunPlan>();
  for (const node of nodes) {
    const { record } = node;
    const project = `${record.language}\u0000${projectOf(record)}`;
    const plan = grouped.get(project);
    if (plan === undefined) {
      grouped.set(project, { args: { language: record.language, path: rootOf(record) }, nodes: [node] });
    } else {
      plan.nodes.push(node);
    }
  }
  return [...grouped.values()];
}

/** The project a record belongs to, as one string: its workspace folder (from the URI and `file`) and `project`. */
function projectOf(record: TestRecord): string {
  const uri = record.uri;
  const file = record.file.replace(/\\/g, '/');
  const folder = uri.endsWith(file) ? uri.slice(0, uri.length - file.length) : uri;
  return `${folder}\u0000${record.project}`;
}
