/**
 * Starts, restarts and stops `lintel serve`, and sends it commands; the only module that holds the LanguageClient.
 * The server decides everything: this passes trust and the user's settings, and maps commands.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as vscode from 'vscode';
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  ResponseError,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
  WorkDoneProgress,
} from 'vscode-languageclient/node';
import { activeFileIn } from './activeFile';
import { findOnPath, type Host, isAvailable, resolveServerCommand } from './lib/serverCommand';
import {
  type ConfigurationSection,
  initializationOptions,
  isSetByUser,
  type Settings,
  serverSettingKeys,
  toServerSettings,
} from './lib/settings';
import { type Detection, detectedLanguages, type KnownLanguage } from './lib/results';
import { type CommandArgs, DOCUMENT_LANGUAGE_IDS, SERVER_COMMANDS } from './lib/targets';
import type { StatusBar } from './statusBar';

const SECTION = 'lintel';
const INSTALL_HINT =
  "Install lintel (pip install 'lintel-lsp[python]') or set lintel.server.path or lintel.server.interpreter";

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function host(): Host {
  return {
    platform: process.platform,
    home: os.homedir(),
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    findExecutable: (name) => findOnPath(name, process.env, process.platform, isExecutable),
    isExecutable,
  };
}

/** A command's answer, or why there is none (the error was shown already). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; cancelled: boolean };

export class Lintel implements vscode.Disposable {
  private client: LanguageClient | undefined;
  /** Start and stop never overlap: each waits for the one before. */
  private lifecycle: Promise<void> = Promise.resolve();
  private readonly settingKeys: string[];
  private readonly detections = new Map<string, Detection>();

  constructor(
    context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusBar,
  ) {
    const contributes = (context.extension.packageJSON as { contributes?: { configuration?: ConfigurationSection[] } })
      .contributes;
    this.settingKeys = serverSettingKeys(contributes?.configuration ?? []);
  }

  start(): Promise<void> {
    return this.serialize(() => this.startClient());
  }

  restart(): Promise<void> {
    return this.serialize(async () => {
      await this.stopClient();
      await this.startClient();
    });
  }

  stop(): Promise<void> {
    return this.serialize(() => this.stopClient());
  }

  dispose(): void {
    void this.stop();
  }

  /** The server pulls `workspace/configuration` again when told that something changed. */
  async settingsChanged(): Promise<void> {
    if (this.client?.state === State.Running) {
      await this.client.sendNotification(DidChangeConfigurationNotification.type, { settings: null });
      await this.detect();
    }
  }

  /** What the last `lintel.detect` found in a folder: every project in it, with its root. */
  detectionOf(folder: vscode.WorkspaceFolder): Detection | undefined {
    return this.detections.get(folder.uri.toString());
  }

  /** The languages detected in a folder at the last `lintel.detect`. */
  languagesOf(folder: vscode.WorkspaceFolder): string[] {
    return detectedLanguages([this.detectionOf(folder)]);
  }

  /** The languages lintel knows in a folder (built-in and declared in its lintel.toml) at the last `lintel.detect`. */
  knownLanguagesIn(folder: vscode.WorkspaceFolder): KnownLanguage[] {
    return this.detectionOf(folder)?.languages ?? [];
  }

  /**
   * Shows the detected languages in the status bar: in the active file's folder those of the project holding it (the
   * one the commands act on), elsewhere the folder's.
   */
  showDetected(): void {
    if (this.client?.state !== State.Running) {
      return; // the status says so; the detection comes once it runs
    }
    const languages = (vscode.workspace.workspaceFolders ?? []).flatMap((folder) => {
      const detection = this.detectionOf(folder);
      const active = activeFileIn(folder, detection, this.knownLanguagesIn(folder));
      return active?.project?.languages ?? detectedLanguages([detection]);
    });
    this.status.update({ languages: [...new Set(languages)] });
  }

  /** Asks the server what every workspace folder holds and shows it in the status bar. */
  async detect(): Promise<void> {
    const client = this.client;
    if (client?.state !== State.Running) {
      return;
    }
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      try {
        const detection = (await client.sendRequest(ExecuteCommandRequest.type, {
          command: SERVER_COMMANDS.detect,
          arguments: [{ path: folder.uri.fsPath }],
        })) as Detection;
        this.detections.set(folder.uri.toString(), detection);
      } catch (error) {
        this.output.warn(`lintel.detect in ${folder.uri.fsPath} failed: ${describe(error)}`);
      }
    }
    this.showDetected();
  }

  /**
   * Runs one of lintel's commands with a cancellable progress notification fed by the server's `$/progress`;
   * cancelling sends `$/cancelRequest`, which kills the run. Errors are shown here.
   */
  async run<T>(command: string, args: CommandArgs, label: string): Promise<Outcome<T>> {
    const client = this.client;
    if (client?.state !== State.Running) {
      void vscode.window.showErrorMessage('Lintel: the server is not running.', 'Restart Server').then((pick) => {
        if (pick) {
          void this.restart();
        }
      });
      return { ok: false, cancelled: false };
    }
    const done = this.status.running(label);
    const options = { location: vscode.ProgressLocation.Notification, title: `Lintel: ${label}`, cancellable: true };
    try {
      return await vscode.window.withProgress(options, async (progress, token) => {
        const workDoneToken = randomUUID();
        const listener = client.onProgress(WorkDoneProgress.type, workDoneToken, (value) => {
          if (value.kind !== 'end' && value.message) {
            progress.report({ message: value.message });
          }
        });
        try {
          const params = { command, arguments: [args], workDoneToken };
          const value = (await client.sendRequest(ExecuteCommandRequest.type, params, token)) as T;
          return { ok: true, value } as const;
        } catch (error) {
          if (token.isCancellationRequested) {
            this.output.info(`${label}: cancelled`);
            return { ok: false, cancelled: true } as const;
          }
          throw error;
        } finally {
          listener.dispose();
        }
      });
    } catch (error) {
      this.output.error(`${label}: ${describe(error)}`);
      void vscode.window.showErrorMessage(`Lintel: ${describe(error)}`, 'Show Output').then((pick) => {
        if (pick) {
          this.output.show(true);
        }
      });
      return { ok: false, cancelled: false };
    } finally {
      done();
    }
  }

  private serialize(step: () => Promise<void>): Promise<void> {
    this.lifecycle = this.lifecycle.then(step, step);
    return this.lifecycle;
  }

  private async startClient(): Promise<void> {
    const config = vscode.workspace.getConfiguration(SECTION);
    const settings = {
      path: config.get<string>('server.path', ''),
      interpreter: config.get<string[]>('server.interpreter', []),
    };
    const here = host();
    const resolved = resolveServerCommand(settings, here);
    const commandLine = `${resolved.command} ${resolved.args.join(' ')}`;
    if (!isAvailable(resolved.command, here)) {
      this.notStarted(`${resolved.command} (from ${resolved.via}) was not found`);
      return;
    }
    this.output.info(`starting ${commandLine} (via ${resolved.via})`);
    const serverOptions: ServerOptions = {
      command: resolved.command,
      args: resolved.args,
      options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, env: process.env },
    };
    const clientOptions: LanguageClientOptions = {
      // Files of the languages declared in lintel.toml the server registers for itself (client/registerCapability).
      documentSelector: DOCUMENT_LANGUAGE_IDS.map((language) => ({ scheme: 'file', language })),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => initializationOptions(vscode.workspace.isTrusted, this.serverSettings()),
      middleware: {
        workspace: {
          // The `lintel` section in the server's shape; other sections as VS Code has them.
          configuration: async (params, token, next) => {
            const answers = await next(params, token);
            if (answers instanceof ResponseError) {
              return answers;
            }
            const values: unknown[] = answers;
            return params.items.map((item, index): unknown =>
              item.section === SECTION
                ? this.serverSettings(item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined)
                : values[index],
            );
          },
        },
      },
    };
    const client = new LanguageClient(SECTION, 'Lintel', serverOptions, clientOptions);
    client.onDidChangeState((event) => {
      const server =
        event.newState === State.Running ? 'running' : event.newState === State.Starting ? 'starting' : 'stopped';
      this.status.update({ server, trusted: vscode.workspace.isTrusted });
    });
    this.client = client;
    this.status.update({ server: 'starting', languages: undefined, trusted: vscode.workspace.isTrusted });
    try {
      await client.start();
    } catch (error) {
      // The client has shown its own pop-up ("couldn't create connection"); the log says what to do.
      this.status.update({ server: 'stopped' });
      this.output.error(`could not start ${commandLine}: ${describe(error)}. ${INSTALL_HINT}`);
      return;
    }
    await this.detect();
  }

  private notStarted(reason: string): void {
    this.status.update({ server: 'stopped' });
    this.output.error(`${reason}. ${INSTALL_HINT}`);
    // Not awaited: the pop-up must not hold up a restart.
    void vscode.window.showErrorMessage(`Lintel: ${reason}. ${INSTALL_HINT}`, 'Open Settings').then((pick) => {
      if (pick) {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'lintel.server');
      }
    });
  }

  private async stopClient(): Promise<void> {
    const client = this.client;
    this.client = undefined;
    this.detections.clear();
    if (client === undefined) {
      return;
    }
    try {
      await client.dispose(5000); // shutdown + exit, then the process is killed
    } catch (error) {
      this.output.warn(`stopping the server: ${describe(error)}`);
    }
  }

  /** Only what the user set: a default sent from here would outrank the workspace's lintel.toml. */
  private serverSettings(scope?: vscode.Uri): Settings {
    const config = vscode.workspace.getConfiguration(SECTION, scope);
    return toServerSettings(this.settingKeys, (key) =>
      isSetByUser(config.inspect(key)) ? config.get(key) : undefined,
    );
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
