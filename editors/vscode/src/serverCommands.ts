/**
 * The language servers' own commands (typescript-language-server's `_typescript.*`, gopls's `gopls.*`…) that lintel
 * advertises and forwards to them, run through one command of the extension's rather than claimed as VS Code
 * commands: VS Code's own TypeScript extension registers `_typescript.*` names too, and a name VS Code already has
 * makes vscode-languageclient fail the whole start ("command already exists"); claimed first, the other extension
 * would fail instead, or run the server's arguments through its handler. lintel's own commands (`lintel.*`) are
 * registered as usual.
 */
import type * as vscode from 'vscode';
import type { Middleware } from 'vscode-languageclient/node';

/** The command the answers' server commands run under: [server command, its arguments]. */
export const RUN_SERVER_COMMAND = '_lintel.runServerCommand';

const OWN_PREFIX = 'lintel.';

type Registration = { id: string; registerOptions: { commands?: string[] } };
/** vscode-languageclient's ExecuteCommandFeature, as far as it is used here. */
export interface CommandFeature {
  register(data: Registration): void;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The commands an answer carries: bare commands among code actions, a code action's, a code lens's, a completion
 * item's (in a list or not), an inlay hint label part's. */
export function commandsIn(value: unknown): vscode.Command[] {
  if (Array.isArray(value)) {
    return value.flatMap(commandsIn);
  }
  if (!isObject(value)) {
    return [];
  }
  if (typeof value.command === 'string' && typeof value.title === 'string') {
    return [value as unknown as vscode.Command];
  }
  return [value.command, value.items, value.label].flatMap((part) => (isObject(part) ? commandsIn(part) : []));
}

export class ServerCommands {
  /** The server's commands that are not lintel's own (every registration's, static or dynamic). */
  private readonly relayed = new Set<string>();

  /** Of one registration's commands, those VS Code registers (lintel's own); the others run through
   * RUN_SERVER_COMMAND. */
  claim(commands: readonly string[]): string[] {
    for (const command of commands) {
      if (!command.startsWith(OWN_PREFIX)) {
        this.relayed.add(command);
      }
    }
    return commands.filter((command) => command.startsWith(OWN_PREFIX));
  }

  /** The feature's registrations (the `initialize` answer's and the server's later ones) claim only lintel's own. */
  attach(feature: CommandFeature): void {
    const register = feature.register.bind(feature);
    // The client's own registration step: VS Code registers what it is handed, a name it already has included.
    feature.register = (data) =>
      register({
        ...data,
        registerOptions: { ...data.registerOptions, commands: this.claim(data.registerOptions.commands ?? []) },
      });
  }

  /** The server commands of an answer, in place, set to run through RUN_SERVER_COMMAND (the objects are kept:
   * vscode-languageclient holds the items' data on them for their resolve). */
  wrap<T>(answer: T): T {
    for (const command of commandsIn(answer)) {
      if (this.relayed.has(command.command)) {
        command.arguments = [command.command, command.arguments ?? []];
        command.command = RUN_SERVER_COMMAND;
      }
    }
    return answer;
  }

  /** An item going back to the server (a resolve) with its commands as the server made them; undone by wrap. */
  unwrap<T>(item: T): T {
    for (const command of commandsIn(item)) {
      const [name, args] = (command.arguments ?? []) as unknown[];
      if (command.command === RUN_SERVER_COMMAND && typeof name === 'string') {
        command.command = name;
        command.arguments = Array.isArray(args) && args.length > 0 ? args : undefined;
      }
    }
    return item;
  }

  private async resolved<T>(item: T, resolve: (item: T) => vscode.ProviderResult<T>): Promise<T | null | undefined> {
    this.unwrap(item);
    try {
      return this.wrap(await resolve(item));
    } finally {
      this.wrap(item);
    }
  }

  /** The middleware of every answer that carries commands. */
  middleware(): Middleware {
    return {
      provideCodeActions: async (document, range, context, token, next) =>
        this.wrap(await next(document, range, context, token)),
      resolveCodeAction: (item, token, next) => this.resolved(item, (it) => next(it, token)),
      provideCodeLenses: async (document, token, next) => this.wrap(await next(document, token)),
      resolveCodeLens: (item, token, next) => this.resolved(item, (it) => next(it, token)),
      provideCompletionItem: async (document, position, context, token, next) =>
        this.wrap(await next(document, position, context, token)),
      resolveCompletionItem: (item, token, next) => this.resolved(item, (it) => next(it, token)),
      provideInlayHints: async (document, viewPort, token, next) => this.wrap(await next(document, viewPort, token)),
      resolveInlayHint: (item, token, next) => this.resolved(item, (it) => next(it, token)),
    };
  }
}
