/**
 * The Test Explorer: a TestController fed by `lintel.discoverTests` (static: nothing runs to list tests), kept in step
 * with `lintel/testsChanged`, running tests through `lintel.runTests` and showing each one's outcome and failure.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { renderResult, resolveFile, type RunResult, type TestFailure } from './lib/results';
import { DEBUG_EXTENSIONS, debugConfiguration } from './lib/testDebug';
import { comparison } from './lib/testMessages';
import { planOutcome } from './lib/testOutcomes';
import {
  buildTree,
  byFile,
  filePath,
  planProjects,
  planRuns,
  type TestNode,
  type TestRecord,
  testsUnder,
} from './lib/testTree';

export const DISCOVER_TESTS = 'lintel.discoverTests';
export const RUN_TESTS = 'lintel.runTests';
export const TESTS_CHANGED = 'lintel/testsChanged';

/** What the Test Explorer needs of the server client (client.ts's Lintel). */
export interface TestServer {
  request<T>(command: string, args: unknown, token?: vscode.CancellationToken): Promise<T>;
  onNotification(method: string, handler: (params: unknown) => void): void;
  readonly onDidStart: vscode.Event<void>;
}

interface TestsChanged {
  uri: string;
  tests: TestRecord[];
}

export class LintelTests implements vscode.Disposable {
  private readonly controller = vscode.tests.createTestController('lintel', 'lintel');
  /** Every discovered node by key (its TestItem's id). */
  private readonly nodes = new Map<string, TestNode>();
  private readonly items = new Map<string, vscode.TestItem>();
  private readonly debugProfiles = new Map<string, vscode.TestRunProfile>();
  private readonly disposables: vscode.Disposable[] = [];
  /** The view asked for the tests: a (re)started server lists them again. */
  private wanted = false;

  constructor(
    private readonly server: TestServer,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.controller.resolveHandler = async (item) => {
      if (item === undefined) {
        this.wanted = true;
        await this.discover();
      }
    };
    this.controller.refreshHandler = (token) => this.discover(token);
    this.controller.createRunProfile('Run', vscode.TestRunProfileKind.Run, (r, t) => this.run(r, t), true);
    server.onNotification(TESTS_CHANGED, (params) => this.changed(params as TestsChanged));
    this.disposables.push(
      this.controller,
      server.onDidStart(() => {
        if (this.wanted) {
          void this.discover();
        }
      }),
      vscode.extensions.onDidChange(() => this.offerDebug()),
    );
    this.offerDebug();
  }

  dispose(): void {
    for (const disposable of [...this.disposables, ...this.debugProfiles.values()]) {
      disposable.dispose();
    }
  }

  /** Every workspace folder's tests, replacing what was there. */
  async discover(token?: vscode.CancellationToken): Promise<void> {
    const records: TestRecord[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      try {
        records.push(...(await this.server.request<TestRecord[]>(DISCOVER_TESTS, { path: folder.uri.fsPath }, token)));
      } catch (error) {
        this.output.warn(`${DISCOVER_TESTS} in ${folder.uri.fsPath} failed: ${describe(error)}`);
        return; // what is shown stays: a server not running yet lists them once it starts
      }
    }
    this.nodes.clear();
    this.items.clear();
    this.controller.items.replace(buildTree(records).map((node) => this.item(node)));
  }

  /** A file's tests changed (opened, saved): its items are replaced (kept when the new ones cannot be read). */
  private changed(params: TestsChanged): void {
    const malformed = params.tests.find((record) => !isRecord(record));
    if (malformed !== undefined) {
      this.output.warn(`${TESTS_CHANGED} for ${params.uri}: not a test record: ${JSON.stringify(malformed)}`);
      return;
    }
    for (const [key, node] of [...this.nodes]) {
      if (node.record.uri === params.uri) {
        this.nodes.delete(key);
        this.items.delete(key);
        this.controller.items.delete(key); // a root's; the others go with it
      }
    }
    for (const records of byFile(params.tests).values()) {
      buildTree(records).forEach((node) => this.controller.items.add(this.item(node)));
    }
  }

  private item(node: TestNode): vscode.TestItem {
    const { record } = node;
    this.nodes.set(node.key, node);
    const item = this.controller.createTestItem(node.key, record.label, vscode.Uri.parse(record.uri));
    const { start, end } = record.range;
    item.range = new vscode.Range(start.line, start.character, end.line, end.character);
    item.tags = [new vscode.TestTag(record.language)];
    item.children.replace(node.children.map((child) => this.item(child)));
    this.items.set(node.key, item);
    return item;
  }

  /** The requested nodes (all files when the request names none), less the excluded ones. */
  private requested(request: vscode.TestRunRequest): TestNode[] {
    const items: vscode.TestItem[] = [];
    if (request.include) {
      items.push(...request.include);
    } else {
      this.controller.items.forEach((item) => items.push(item));
    }
    const excluded = new Set((request.exclude ?? []).map((item) => item.id));
    const nodes = items.flatMap((item) => this.nodes.get(item.id) ?? []);
    if (excluded.size === 0) {
      return nodes;
    }
    // An exclusion inside a requested node: that node's tests are named one by one, less the excluded.
    const expand = (node: TestNode): TestNode[] => {
      if (excluded.has(node.key)) {
        return [];
      }
      const inside = (n: TestNode): boolean => excluded.has(n.key) || n.children.some(inside);
      return node.children.some(inside) ? node.children.flatMap(expand) : [node];
    };
    return nodes.flatMap(expand);
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const run = this.controller.createTestRun(request);
    const requested = this.requested(request);
    const everything = request.include === undefined && (request.exclude ?? []).length === 0;
    const plans = everything ? planProjects(requested, (record) => this.projectRoot(record)) : planRuns(requested);
    const itemOf = (node: TestNode): vscode.TestItem | undefined => this.items.get(node.key);
    const testsOf = (nodes: TestNode[]): vscode.TestItem[] => [
      ...new Set(nodes.flatMap(testsUnder).flatMap((n) => itemOf(n) ?? [])),
    ];
    plans.forEach((plan) => testsOf(plan.nodes).forEach((item) => run.enqueued(item)));
    try {
      for (const plan of plans) {
        const items = testsOf(plan.nodes);
        if (token.isCancellationRequested) {
          items.forEach((item) => run.skipped(item));
          continue;
        }
        items.forEach((item) => run.started(item));
        let result: RunResult;
        try {
          result = await this.server.request<RunResult>(RUN_TESTS, plan.args, token);
        } catch (error) {
          const message = token.isCancellationRequested ? 'cancelled' : describe(error);
          items.forEach((item) =>
            token.isCancellationRequested ? run.skipped(item) : run.errored(item, msg(message)),
          );
          run.appendOutput(crlf(`${RUN_TESTS} ${JSON.stringify(plan.args)}: ${message}\n`));
          continue;
        }
        run.appendOutput(crlf(`${renderResult(result)}\n`));
        const { outcomes, unmatched } = planOutcome(plan, result);
        for (const outcome of outcomes) {
          const item = itemOf(outcome.node);
          if (item === undefined) {
            continue;
          } else if (outcome.state === 'passed') {
            run.passed(item, outcome.node.record.kind === 'test' && items.length === 1 ? result.durationMs : undefined);
          } else if (outcome.state === 'failed') {
            run.failed(
              item,
              outcome.failures.map((f) => this.message(f, item)),
            );
          } else {
            run.errored(item, msg(outcome.message));
          }
        }
        for (const failure of unmatched) {
          run.appendOutput(crlf(`FAILED ${failure.name}: ${failure.message}\n`));
        }
      }
    } finally {
      run.end();
    }
  }

  /** A failure as the Test Explorer shows it: its message (a diff when it states expected and actual), at its line. */
  private message(failure: TestFailure, item: vscode.TestItem): vscode.TestMessage {
    const compared = comparison(failure.message);
    const message = compared
      ? vscode.TestMessage.diff(failure.message, compared.expected, compared.actual)
      : new vscode.TestMessage(failure.message || failure.name);
    const folder = item.uri && vscode.workspace.getWorkspaceFolder(item.uri);
    if (failure.file !== undefined && failure.line !== undefined && folder) {
      const file = vscode.Uri.file(resolveFile(failure.file, folder.uri.fsPath));
      message.location = new vscode.Location(file, new vscode.Position(Math.max(0, failure.line - 1), 0));
    } else if (item.uri && item.range) {
      message.location = new vscode.Location(item.uri, item.range);
    }
    return message;
  }

  /** A record's project root on disk (`project` is relative to the workspace folder holding its file). */
  private projectRoot(record: TestRecord): string {
    const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(record.uri));
    return folder ? path.join(folder.uri.fsPath, record.project) : path.dirname(filePath(record));
  }

  /** A Debug profile per language whose debug adapter is installed (tagged: offered on that language's tests only). */
  private offerDebug(): void {
    for (const [language, extensions] of Object.entries(DEBUG_EXTENSIONS)) {
      const installed = extensions.some((id) => vscode.extensions.getExtension(id) !== undefined);
      const profile = this.debugProfiles.get(language);
      if (installed && profile === undefined) {
        const handler = (request: vscode.TestRunRequest): Promise<void> => this.debug(request);
        const tag = new vscode.TestTag(language);
        this.debugProfiles.set(
          language,
          this.controller.createRunProfile('Debug', vscode.TestRunProfileKind.Debug, handler, true, tag),
        );
      } else if (!installed && profile !== undefined) {
        profile.dispose();
        this.debugProfiles.delete(language);
      }
    }
  }

  /** Starts the debugger on each requested test (a file: the whole file), in its project's folder. */
  private async debug(request: vscode.TestRunRequest): Promise<void> {
    for (const node of this.requested(request)) {
      const { record } = node;
      const folder = vscode.workspace.getWorkspaceFolder(vscode.Uri.parse(record.uri));
      if (folder === undefined) {
        continue;
      }
      const projectRoot = this.projectRoot(record);
      const dependencies = record.language === 'node' ? packageDependencies(projectRoot) : undefined;
      const configuration = debugConfiguration({ record, projectRoot, dependencies });
      if (configuration === undefined) {
        continue;
      }
      this.output.info(`debugging ${record.id} in ${filePath(record)}: ${JSON.stringify(configuration)}`);
      if (!(await vscode.debug.startDebugging(folder, configuration))) {
        void vscode.window.showErrorMessage(`Lintel: could not start the debugger for ${record.label}.`);
      }
    }
  }
}

function packageDependencies(root: string): Record<string, unknown> {
  try {
    const json = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
    return { ...(json.dependencies as object), ...(json.devDependencies as object) };
  } catch {
    return {};
  }
}

function isRecord(value: TestRecord): boolean {
  const { range } = value as Partial<TestRecord>;
  return typeof value.id === 'string' && typeof value.uri === 'string' && range?.start !== undefined && !!range.end;
}

function msg(text: string): vscode.TestMessage {
  return new vscode.TestMessage(text);
}

/** The run's output is a terminal: it wants CRLF. */
function crlf(text: string): string {
  return text.replace(/\r?\n/g, '\r\n');
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
