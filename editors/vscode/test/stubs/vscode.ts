/**
 * A stand-in for the `vscode` module in the unit tests (esbuild.mjs aliases `vscode` to this file): the few APIs the
 * command modules use, the state a test sets (folders, the active editor) and a record of what the code asked.
 */

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly fsPath: string,
  ) {}

  static file(path: string): Uri {
    return new Uri('file', path);
  }

  /** `untitled:Untitled-1`, `git:/w/app/x.ts`… */
  static parse(text: string): Uri {
    const colon = text.indexOf(':');
    return new Uri(text.slice(0, colon), text.slice(colon + 1));
  }

  get path(): string {
    return this.fsPath;
  }

  toString(): string {
    return `${this.scheme}:${this.fsPath}`;
  }
}

export interface WorkspaceFolder {
  readonly uri: Uri;
  readonly name: string;
  readonly index: number;
}

export interface TextDocument {
  readonly uri: Uri;
  readonly languageId: string;
}

export class Range {
  constructor(
    readonly startLine: number,
    readonly startCharacter: number,
    readonly endLine: number,
    readonly endCharacter: number,
  ) {}
}

interface QuickPickItem {
  label: string;
}

let chosen: string | undefined;
/** The button the user clicks in the next error notification (none: it is left alone). */
let clicked: string | undefined;

/** What the code under test asked of the editor, in order. */
export const asked = {
  quickPicks: [] as string[][],
  messages: [] as string[],
  errors: [] as { message: string; buttons: string[] }[],
  commands: [] as { name: string; args: unknown[] }[],
};

/** The user's settings, by full key (`lintel.server.path`). */
const settings = new Map<string, unknown>();

export const window = {
  activeTextEditor: undefined as { document: TextDocument } | undefined,
  /** The user takes the item `choose` named, else the first. */
  showQuickPick<T extends QuickPickItem>(items: readonly T[]): Promise<T | undefined> {
    asked.quickPicks.push(items.map((item) => item.label));
    return Promise.resolve(items.find((item) => item.label === chosen) ?? items[0]);
  },
  showInformationMessage(message: string): Promise<undefined> {
    asked.messages.push(message);
    return Promise.resolve(undefined);
  },
  showWarningMessage(message: string): Promise<undefined> {
    asked.messages.push(message);
    return Promise.resolve(undefined);
  },
  showErrorMessage(message: string, ...buttons: string[]): Promise<string | undefined> {
    asked.errors.push({ message, buttons });
    const pick = clicked !== undefined && buttons.includes(clicked) ? clicked : undefined;
    return Promise.resolve(pick);
  },
  showWorkspaceFolderPick(): Promise<WorkspaceFolder | undefined> {
    return Promise.resolve(undefined);
  },
  showTextDocument(): Promise<void> {
    return Promise.resolve();
  },
};

export const workspace = {
  workspaceFolders: undefined as WorkspaceFolder[] | undefined,
  isTrusted: true,
  getConfiguration(section: string): { get<T>(key: string, fallback: T): T } {
    return {
      get: <T>(key: string, fallback: T): T =>
        settings.has(`${section}.${key}`) ? (settings.get(`${section}.${key}`) as T) : fallback,
    };
  },
  /** By path alone, whatever the scheme (except untitled): the extension must not rely on it to rule out the rest. */
  getWorkspaceFolder(uri: Uri): WorkspaceFolder | undefined {
    if (uri.scheme === 'untitled') {
      return undefined;
    }
    return this.workspaceFolders?.find((folder) => uri.fsPath.startsWith(`${folder.uri.fsPath}/`));
  },
};

const registered = new Map<string, () => unknown>();

export const commands = {
  registerCommand(name: string, callback: () => unknown): { dispose(): void } {
    registered.set(name, callback);
    return { dispose: () => registered.delete(name) };
  },
  executeCommand(name: string, ...args: unknown[]): Promise<undefined> {
    asked.commands.push({ name, args });
    return Promise.resolve(undefined);
  },
};

// -- for the tests ------------------------------------------------------------------------------------------------

/** Runs a registered command as the palette would, and waits for it. */
export async function execute(name: string): Promise<void> {
  const callback = registered.get(name);
  if (callback === undefined) {
    throw new Error(`${name} is not registered`);
  }
  await callback();
}

/** Opens the workspace folders `paths`, with `document` (if any) in the active editor. */
export function open(paths: readonly string[], document?: TextDocument): void {
  workspace.workspaceFolders = paths.map((path, index) => ({ uri: Uri.file(path), name: path, index }));
  window.activeTextEditor = document && { document };
  workspace.isTrusted = true;
  asked.quickPicks.length = 0;
  asked.messages.length = 0;
  asked.errors.length = 0;
  asked.commands.length = 0;
  chosen = undefined;
  clicked = undefined;
  settings.clear();
  registered.clear();
}

/** Sets a user setting (`undefined` removes it). */
export function setSetting(key: string, value: unknown): void {
  if (value === undefined) {
    settings.delete(key);
  } else {
    settings.set(key, value);
  }
}

/** The button the user clicks in the error notifications from now on. */
export function click(button: string | undefined): void {
  clicked = button;
}

/** A log output channel that keeps its lines, by level. */
export class LogOutput {
  readonly lines: string[] = [];
  info(line: string): void {
    this.lines.push(`info ${line}`);
  }
  warn(line: string): void {
    this.lines.push(`warn ${line}`);
  }
  error(line: string): void {
    this.lines.push(`error ${line}`);
  }
}

/** The quick pick item the user takes, by label. */
export function choose(label: string): void {
  chosen = label;
}
