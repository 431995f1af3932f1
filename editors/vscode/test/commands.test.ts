import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { Lintel, Outcome } from '../src/client';
import { COMMANDS, registerCommands } from '../src/commands';
import { type Detection, detectedLanguages, type KnownLanguage, type RunResult } from '../src/lib/results';
import type { CommandArgs } from '../src/lib/targets';
import * as vscode from './stubs/vscode';

/** The server side of the commands: what `lintel.detect` found in each folder, and each command sent. */
class FakeLintel {
  readonly sent: CommandArgs[] = [];
  readonly commands: string[] = [];
  detections = 0;

  constructor(private readonly found: Readonly<Record<string, Detection>>) {}

  detect(): Promise<void> {
    this.detections += 1;
    return Promise.resolve();
  }

  detectionOf(folder: vscode.WorkspaceFolder): Detection | undefined {
    return this.found[folder.uri.fsPath];
  }

  languagesOf(folder: vscode.WorkspaceFolder): string[] {
    return detectedLanguages([this.detectionOf(folder)]);
  }

  knownLanguagesIn(folder: vscode.WorkspaceFolder): KnownLanguage[] {
    return this.detectionOf(folder)?.languages ?? [];
  }

  run<T>(command: string, args: CommandArgs): Promise<Outcome<T>> {
    this.commands.push(command);
    this.sent.push(args);
    const result: RunResult = {
      ok: true,
      language: args.language ?? 'node',
      check: 'test',
      argv: [],
      cwd: '/',
      exitCode: 0,
      timedOut: false,
      durationMs: 1,
      output: '',
      issues: [],
    };
    return Promise.resolve({ ok: true, value: result as T });
  }
}

/** A `lintel.detect` of `root`: its projects as [language, root relative to it]. */
function detection(root: string, ...projects: [string, string][]): Detection {
  return { root, projects: projects.map(([language, at]) => ({ language, root: at, markers: [] })) };
}

/** api/ (Go) and web/ (node) in /w/mono, nothing at its root. */
const MONOREPO = { '/w/mono': detection('/w/mono', ['go', 'api'], ['node', 'web']) };
/** go.mod and package.json both at the root of /w/mono. */
const POLYGLOT = { '/w/mono': detection('/w/mono', ['go', '.'], ['node', '.']) };

const output = { info: () => undefined, show: () => undefined };

/** Opens `found`'s folders with `document` active, runs the palette command `name`; what the server was sent. */
async function run(
  name: string,
  found: Record<string, Detection>,
  document?: vscode.TextDocument,
  pick?: string,
): Promise<FakeLintel> {
  vscode.open(Object.keys(found), document);
  if (pick !== undefined) {
    vscode.choose(pick);
  }
  const lintel = new FakeLintel(found);
  registerCommands(lintel as unknown as Lintel, output as unknown as Parameters<typeof registerCommands>[1]);
  await vscode.execute(name);
  return lintel;
}

const file = (path: string, languageId = 'typescript'): vscode.TextDocument => ({
  uri: vscode.Uri.file(path),
  languageId,
});

const SERVER_COMMAND_OF = {
  [COMMANDS.runTests]: 'lintel.runTests',
  [COMMANDS.typecheck]: 'lintel.typecheck',
  [COMMANDS.lint]: 'lintel.lint',
  [COMMANDS.showTestFailures]: 'lintel.lastTestFailures',
};

describe('the path a command acts on', () => {
  beforeEach(() => vscode.open([]));

  for (const [name, command] of Object.entries(SERVER_COMMAND_OF)) {
    it(`${name}: the active file, so a file of web/ runs web's project`, async () => {
      const lintel = await run(name, MONOREPO, file('/w/mono/web/src/x.ts'));
      assert.deepEqual(lintel.commands, [command]);
      assert.deepEqual(lintel.sent, [{ path: '/w/mono/web/src/x.ts' }]);
      assert.deepEqual(vscode.asked.quickPicks, []); // the file's project has one language: the server's pick
      assert.equal(lintel.detections, 1);
    });

    it(`${name}: the folder when no editor is open (the monorepo's languages asked)`, async () => {
      const lintel = await run(name, MONOREPO, undefined, 'node');
      assert.deepEqual(vscode.asked.quickPicks, [['go', 'node', 'All']]);
      assert.deepEqual(lintel.sent, [{ language: 'node', path: '/w/mono' }]);
    });
  }

  it('the folder when the active document is untitled or not a file on disk', async () => {
    for (const uri of ['untitled:Untitled-1', 'git:/w/mono/web/src/x.ts', 'output:/w/mono/web/log']) {
      const document = { uri: vscode.Uri.parse(uri), languageId: 'typescript' };
      const lintel = await run(COMMANDS.runTests, MONOREPO, document);
      assert.deepEqual(lintel.sent, [{ language: 'node', path: '/w/mono' }], uri);
    }
  });

  it('the folder when the active file is outside every workspace folder, or in no project', async () => {
    for (const path of ['/elsewhere/web/x.ts', '/w/mono/docs/notes.ts']) {
      const lintel = await run(COMMANDS.runTests, MONOREPO, file(path), 'go');
      assert.deepEqual(lintel.sent, [{ language: 'go', path: '/w/mono' }], path);
    }
  });

  it('the active file in the workspace folder that holds it, of several', async () => {
    const folders = { '/w/api': detection('/w/api', ['go', '.']), '/w/web': detection('/w/web', ['node', '.']) };
    const lintel = await run(COMMANDS.lint, folders, file('/w/web/src/x.ts'));
    assert.deepEqual(lintel.sent, [{ path: '/w/web/src/x.ts' }]);
  });
});

describe('the language, with a file active', () => {
  beforeEach(() => vscode.open([]));

  it("is the project's when the root holding the file has one, whatever the file", async () => {
    const lintel = await run(COMMANDS.runTests, MONOREPO, file('/w/mono/web/README.md', 'markdown'));
    assert.deepEqual(vscode.asked.quickPicks, []);
    assert.deepEqual(lintel.sent, [{ path: '/w/mono/web/README.md' }]);
  });

  it("is still asked in a polyglot folder, the active file's first, and the file is the path", async () => {
    const lintel = await run(COMMANDS.runTests, POLYGLOT, file('/w/mono/cmd/main.go', 'go'));
    assert.deepEqual(vscode.asked.quickPicks, [['go', 'node', 'All']]);
    assert.deepEqual(lintel.sent, [{ language: 'go', path: '/w/mono/cmd/main.go' }]);
  });

  it("runs another language of the file's root from that root: from the file the server takes the file's own", async () => {
    const lintel = await run(COMMANDS.runTests, POLYGLOT, file('/w/mono/cmd/main.go', 'go'), 'All');
    assert.deepEqual(lintel.sent, [
      { language: 'go', path: '/w/mono/cmd/main.go' },
      { language: 'node', path: '/w/mono' },
    ]);
  });
});
