/**
 * Starts, restarts and stops `lintel serve`, and sends it commands; the only module that holds the LanguageClient.
 * The server decides everything: this passes trust and the user's settings, and maps commands.
 */
import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
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
import { currentHost } from './host';
import { type Connected, Launcher } from './launcher';
import { RestartPolicy } from './lib/restartPolicy';
import { type Candidate } from './lib/serverCommand';
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
import { type CommandFeature, RUN_SERVER_COMMAND, ServerCommands } from './serverCommands';
import type { StatusBar } from './statusBar';

const SECTION = 'lintel';

/** A command's answer, or why there is none (the error was shown already). */
export type Outcome<T> = { ok: true; value: T } | { ok: false; cancelled: boolean };

export class Lintel implements vscode.Disposable {
  private readonly launcher: Launcher<LanguageClient>;
  private readonly settingKeys: string[];
  private readonly detections = new Map<string, Detection>();
  /** The user's lintel settings (no folder scope) as the server last had them, to tell when they changed. */
  private sent: string | undefined;
  /** Server notifications handled outside this module, registered on every client started. */
  private readonly notifications: [string, (params: unknown) => void][] = [];
  private readonly started = new vscode.EventEmitter<void>();
  /** Fires once a (re)started server runs and has answered `lintel.detect`. */
  readonly onDidStart = this.started.event;

  constructor(
    context: vscode.ExtensionContext,
    private readonly output: vscode.LogOutputChannel,
    private readonly status: StatusBar,
  ) {
    const contributes = (context.extension.packageJSON as { contributes?: { configuration?: ConfigurationSection[] } })
      .contributes;
    this.settingKeys = serverSettingKeys(contributes?.configuration ?? []);
    this.launcher = new Launcher<LanguageClient>({
      output,
      host: () => currentHost(context.extensionPath),
      connect: (candidate) => this.connect(candidate),
      status: (server) => {
        this.detections.clear();
        this.status.update({ server, languages: undefined, trusted: vscode.workspace.isTrusted });
      },
      readme: vscode.Uri.joinPath(context.extensionUri, 'README.md'),
      restart: (why) => this.restart(why),
    });
  }

  private get client(): LanguageClient | undefined {
    return this.launcher.client;
  }

  start(): Promise<void> {
    return this.restart('activation');
  }

  /** Looks for the server again and starts it (`why` goes to the log), then asks it what the folders hold. */
  async restart(why = 'Lintel: Restart Server'): Promise<void> {
    await this.launcher.start(why);
    await this.detect();
    if (this.client?.state === State.Running) {
      this.started.fire();
    }
  }

  /** Handles a server notification (`lintel/testsChanged`) from this server and every later one. */
  onNotification(method: string, handler: (params: unknown) => void): void {
    this.notifications.push([method, handler]);
    this.client?.onNotification(method, handler);
  }

  /**
   * Sends one of lintel's commands without any UI of its own (the Test Explorer shows the run); cancelling `token`
   * sends `$/cancelRequest`, which kills the run. Rejects when the server is not running or answers an error.
   */
  async request<T>(command: string, args: unknown, token?: vscode.CancellationToken): Promise<T> {
    const client = this.client;
    if (client?.state !== State.Running) {
      throw new Error('the lintel server is not running');
    }
    return (await client.sendRequest(ExecuteCommandRequest.type, { command, arguments: [args] }, token)) as T;
  }

  stop(): Promise<void> {
    return this.launcher.stop();
  }

  dispose(): void {
    this.started.dispose();
    void this.stop();
  }

  /**
   * Any configuration event. A changed `lintel.server.*` value starts the search over (the launcher compares
   * values); any other changed lintel value is pulled again by the server (`workspace/configuration`), once told:
   * when the event names the section (a folder's own settings too), or the values differ whatever it names.
   */
  configurationChanged(event: vscode.ConfigurationChangeEvent): void {
    this.launcher.settingsMayHaveChanged();
    const named = event.affectsConfiguration(SECTION) && !event.affectsConfiguration(`${SECTION}.server`);
    if (named || JSON.stringify(this.serverSettings()) !== this.sent) {
      void this.settingsChanged();
    }
  }

  /** The server pulls `workspace/configuration` again when told that something changed. */
  async settingsChanged(): Promise<void> {
    if (this.client?.state === State.Running) {
      this.sent = JSON.stringify(this.serverSettings());
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

  /** `lintel.server.daemon`: whether the server may start through the warm lintel. */
  private daemon(): boolean {
    return vscode.workspace.getConfiguration(SECTION).get<boolean>('server.daemon', true);
  }

  /** Starts `candidate` with vscode-languageclient; rejects when it does not start, and then nothing retries. */
  private async connect(candidate: Candidate): Promise<Connected<LanguageClient>> {
    const serverOptions: ServerOptions = {
      command: candidate.command,
      args: [...candidate.args, 'serve', ...(this.daemon() ? [] : ['--no-daemon'])],
      options: { cwd: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, env: process.env },
    };
    const policy = new RestartPolicy();
    const serverCommands = new ServerCommands();
    const clientOptions: LanguageClientOptions = {
      // Files of the languages declared in lintel.toml the server registers for itself (client/registerCapability).
      documentSelector: DOCUMENT_LANGUAGE_IDS.map((language) => ({ scheme: 'file', language })),
      outputChannel: this.output,
      traceOutputChannel: this.output,
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      initializationOptions: () => {
        const settings = this.serverSettings();
        this.sent = JSON.stringify(settings);
        return initializationOptions(vscode.workspace.isTrusted, settings);
      },
      errorHandler: {
        error: (_error, _message, count) => ({
          action: count !== undefined && count <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
        }),
        closed: () => {
          const decision = policy.closed();
          if (decision.restart) {
            return { action: CloseAction.Restart };
          }
          // handled: logged here once, no pop-up of the client's own
          this.output.error(`lintel stopped: ${decision.reason}. Lintel: Restart Server starts it again.`);
          return { action: CloseAction.DoNotRestart, handled: true };
        },
      },
      middleware: {
        ...serverCommands.middleware(),
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
    for (const [method, handler] of this.notifications) {
      client.onNotification(method, handler);
    }
    // vscode-languageclient types getFeature for other methods only; its ExecuteCommandFeature is there all the same.
    serverCommands.attach(client.getFeature(ExecuteCommandRequest.method as never) as unknown as CommandFeature);
    const runServerCommand = vscode.commands.registerCommand(RUN_SERVER_COMMAND, (command: string, args: unknown[]) =>
      client
        .sendRequest(ExecuteCommandRequest.type, { command, arguments: args })
        .then(undefined, (error: unknown) =>
          client.handleFailedRequest(ExecuteCommandRequest.type, undefined, error, undefined),
        ),
    );
    client.onDidChangeState((event) => {
      if (event.newState === State.Running) {
        policy.running();
      }
      const server =
        event.newState === State.Running ? 'running' : event.newState === State.Starting ? 'starting' : 'stopped';
      this.status.update({ server, trusted: vscode.workspace.isTrusted });
    });
    const stop = async (): Promise<void> => {
      runServerCommand.dispose();
      if (client.state !== State.Running) {
        return; // vscode-languageclient stops only a running client ("Client is not running and can't be stopped")
      }
      try {
        await client.dispose(5000); // shutdown + exit, then the process is killed
      } catch (error) {
        this.output.warn(`stopping the server: ${describe(error)}`);
      }
    };
    try {
      await client.start();
    } catch (error) {
      await stop();
      throw error;
    }
    return { client, stop };
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
