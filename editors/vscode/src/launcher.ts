/**
 * The server's lifecycle: find lintel (lib/serverCommand), start it through an injected `connect`, start over when
 * a `lintel.server.*` setting changes, and say once, with what was tried, when nothing works.
 *
 * The settings are read in each start, never kept: on a first launch the extension host can activate this before
 * the User settings reached it (code-server hands the extension host the settings it has when it starts it, and
 * delivers the User settings file later as a configuration change), so the value read at activation may be the
 * default. The change then comes as `onDidChangeConfiguration`, which extension.ts registers before anything is
 * awaited; it starts the search over whatever state the last start left (failed, running, still starting).
 *
 * In a remote window (code-server's are remote) VS Code reads machine settings, as `lintel.server.*` are, from the
 * Remote and workspace settings only: a value in the User settings is there at activation and gone a second later,
 * with no event naming it (docs/editors.md, Which lintel runs). So the launcher compares values and never trusts an
 * event's keys: any configuration event, and a reading every second for the first minute (LATE_SETTINGS), checks the
 * `lintel.server.*` values against those the last search used; a difference that holds for settleMs starts over.
 */
import * as vscode from 'vscode';
import {
  type Candidate,
  commandLine,
  describeAttempt,
  type Discovery,
  findServer,
  type Host,
  notFoundMessage,
  remoteSettingsNote,
  type ServerSettings,
} from './lib/serverCommand';

const SECTION = 'lintel';
export const OPEN_SETTINGS = 'Open Settings';
export const HOW_TO_INSTALL = 'How to install';

/** A started server: its client, and how to stop it (which must not throw, whatever state it is in). */
export interface Connected<T> {
  readonly client: T;
  stop(): Promise<void>;
}

export interface LauncherParts<T> {
  readonly output: vscode.LogOutputChannel;
  /** The machine now (folders and trust are read at each start). */
  host(): Host;
  /** Starts `candidate`'s `serve`; rejects when it does not start (the client has logged why). */
  connect(candidate: Candidate): Promise<Connected<T>>;
  /** The status bar: the server is being looked for / there is none. */
  status(state: 'starting' | 'stopped'): void;
  /** The README, opened by *How to install*. */
  readonly readme: vscode.Uri;
  /** Starts over as a settings change does (the client's restart: the search, then what the folders hold). */
  restart(reason: string): Promise<void>;
}

/** How often, and for how long after activation, the `lintel.server.*` settings are read again, and how long a
 * difference must hold before the search starts over. */
export const LATE_SETTINGS = { everyMs: 1000, forMs: 60_000, settleMs: 500 };

export class Launcher<T> {
  private current: Connected<T> | undefined;
  /** Start and stop never overlap: each waits for the one before. */
  private lifecycle: Promise<void> = Promise.resolve();
  /** Bumped by every request: a start that a newer request superseded while it waited does nothing. */
  private requested = 0;
  /** The `lintel.server.*` values the last search used. */
  private used: ServerSettings | undefined;
  /** Reads the settings again for a while after activation (LATE_SETTINGS). */
  private lateCheck: NodeJS.Timeout | undefined;
  /** A difference seen, checked again when this fires. */
  private settling: NodeJS.Timeout | undefined;

  constructor(private readonly parts: LauncherParts<T>) {}

  get client(): T | undefined {
    return this.current?.client;
  }

  /** Finds and starts the server (stopping the one running, if any). */
  start(reason = 'activation'): Promise<void> {
    const request = ++this.requested;
    return this.serialize(async () => {
      if (request !== this.requested) {
        return; // a newer start is queued behind this one: it reads the newer settings
      }
      await this.stopCurrent();
      await this.startFresh(reason, request);
    });
  }

  stop(): Promise<void> {
    ++this.requested;
    this.stopWatching();
    return this.serialize(() => this.stopCurrent());
  }

  /**
   * A configuration event (any, whatever keys it names), or a periodic reading: when the `lintel.server.*` values
   * differ from those the last search used, and still do SETTLE_MS later, the search starts over.
   */
  settingsMayHaveChanged(): void {
    if (this.settling !== undefined || this.used === undefined || sameSettings(readSettings(), this.used)) {
      return;
    }
    this.settling = setTimeout(() => {
      this.settling = undefined;
      const now = readSettings();
      const used = this.used;
      if (used !== undefined && !sameSettings(now, used)) {
        this.parts.output.info(
          `lintel.server settings now ${describeSettings(now)}; the last search used ${describeSettings(used)}`,
        );
        void this.parts.restart('a lintel.server setting changed');
      }
    }, LATE_SETTINGS.settleMs);
    this.settling.unref();
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(step, step);
    return this.lifecycle;
  }

  private async startFresh(reason: string, request: number): Promise<void> {
    const { output } = this.parts;
    this.parts.status('starting');
    const settings = readSettings();
    const host = this.parts.host();
    output.info(`looking for lintel (${reason})`);
    if (host.remote !== undefined && reason === 'activation') {
      output.info(`  ${remoteSettingsNote(host.remote)}`);
    }
    this.used = settings;
    if (reason === 'activation') {
      this.readForAWhile();
    }
    const discovery: Discovery = await findServer(settings, host, (attempt) =>
      output.info(`  ${describeAttempt(attempt)}`),
    );
    if (request !== this.requested) {
      // The settings changed while this looked (the late User settings): the next search, queued, says the rest.
      output.info('superseded by a newer start');
      return;
    }
    if (discovery.found === undefined) {
      this.parts.status('stopped');
      this.nothingWorks(discovery);
      return;
    }
    const found = discovery.found;
    output.info(`starting ${commandLine(found, 'serve')} (lintel ${discovery.version}, via ${found.via})`);
    try {
      this.current = await this.parts.connect(found);
    } catch (error) {
      // Said once, here; vscode-languageclient has shown its own error and does not retry (lib/restartPolicy).
      this.parts.status('stopped');
      output.error(`${commandLine(found, 'serve')} answered serve --check but did not start: ${describe(error)}`);
    }
  }

  /** Every LATE_SETTINGS.everyMs for LATE_SETTINGS.forMs: a value that changed with no event is seen too. */
  private readForAWhile(): void {
    this.stopWatching();
    const until = Date.now() + LATE_SETTINGS.forMs;
    this.lateCheck = setInterval(() => {
      if (Date.now() > until) {
        clearInterval(this.lateCheck);
        this.lateCheck = undefined;
      } else {
        this.settingsMayHaveChanged();
      }
    }, LATE_SETTINGS.everyMs);
    this.lateCheck.unref(); // never what keeps a process up
  }

  private stopWatching(): void {
    clearInterval(this.lateCheck);
    clearTimeout(this.settling);
    this.lateCheck = this.settling = undefined;
  }

  private async stopCurrent(): Promise<void> {
    const current = this.current;
    this.current = undefined;
    await current?.stop();
  }

  /** One error notification for this search; no retry: the next search starts from a change or a command. */
  private nothingWorks(discovery: Discovery): void {
    const message = notFoundMessage(discovery.tried, this.parts.host().remote);
    this.parts.output.error(message);
    void vscode.window.showErrorMessage(message, OPEN_SETTINGS, HOW_TO_INSTALL).then((pick) => {
      if (pick === OPEN_SETTINGS) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'lintel.server');
      } else if (pick === HOW_TO_INSTALL) {
        void vscode.commands.executeCommand('markdown.showPreview', this.parts.readme);
      }
    });
  }
}

function readSettings(): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return { path: config.get<string>('server.path', ''), interpreter: config.get<string[]>('server.interpreter', []) };
}

function sameSettings(a: ServerSettings, b: ServerSettings): boolean {
  return a.path === b.path && JSON.stringify(a.interpreter) === JSON.stringify(b.interpreter);
}

function describeSettings(settings: ServerSettings): string {
  return `path ${JSON.stringify(settings.path)}, interpreter ${JSON.stringify(settings.interpreter)}`;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
