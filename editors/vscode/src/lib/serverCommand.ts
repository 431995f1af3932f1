/**
 * How `lintel serve` starts: `lintel.server.path`, else `lintel.server.interpreter -m lintel`, else `lintel` on PATH,
 * else `python3 -m lintel`.
 */
import * as path from 'node:path';

export interface ServerSettings {
  /** `lintel.server.path`: the lintel executable. */
  readonly path: string;
  /** `lintel.server.interpreter`: a Python interpreter and its arguments. */
  readonly interpreter: readonly string[];
}

export interface ServerCommand {
  readonly command: string;
  readonly args: string[];
  /** Which step of the chain chose it, for the log. */
  readonly via: 'lintel.server.path' | 'lintel.server.interpreter' | 'PATH' | 'python -m lintel';
}

export interface Host {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  readonly workspaceFolder?: string;
  /** The executable's full path when `name` is on PATH. */
  findExecutable(name: string): string | undefined;
  isExecutable(file: string): boolean;
}

/** `${workspaceFolder}`, `${userHome}` and a leading `~`, as in VS Code's own settings. */
export function expandVariables(value: string, host: Host): string {
  let out = value.replace(/\$\{userHome\}/g, host.home);
  if (host.workspaceFolder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, host.workspaceFolder);
  }
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = host.home + out.slice(1);
  }
  return out;
}

export function resolveServerCommand(settings: ServerSettings, host: Host): ServerCommand {
  const explicit = settings.path.trim();
  if (explicit) {
    return { command: expandVariables(explicit, host), args: ['serve'], via: 'lintel.server.path' };
  }
  const [interpreter, ...interpreterArgs] = settings.interpreter.filter((part) => part.trim() !== '');
  if (interpreter !== undefined) {
    return {
      command: expandVariables(interpreter, host),
      args: [...interpreterArgs.map((arg) => expandVariables(arg, host)), '-m', 'lintel', 'serve'],
      via: 'lintel.server.interpreter',
    };
  }
  const onPath = host.findExecutable('lintel');
  if (onPath !== undefined) {
    return { command: onPath, args: ['serve'], via: 'PATH' };
  }
  const python = host.platform === 'win32' ? 'python' : 'python3';
  return { command: python, args: ['-m', 'lintel', 'serve'], via: 'python -m lintel' };
}

/** Whether the command can be started at all: a path that is executable, or a name found on PATH. */
export function isAvailable(command: string, host: Host): boolean {
  const isPath = command.includes('/') || (host.platform === 'win32' && command.includes('\\'));
  return isPath ? host.isExecutable(command) : host.findExecutable(command) !== undefined;
}

/** The first `name` (with a PATHEXT extension on Windows) in the PATH directories that `isExecutable` accepts. */
export function findOnPath(
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  platform: NodeJS.Platform,
  isExecutable: (file: string) => boolean,
): string | undefined {
  const lib = platform === 'win32' ? path.win32 : path.posix;
  const pathValue = env.PATH ?? env.Path ?? '';
  const extensions = platform === 'win32' ? (env.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';') : [''];
  for (const directory of pathValue.split(lib.delimiter)) {
    if (!directory) {
      continue;
    }
    for (const extension of extensions) {
      const candidate = lib.join(directory, name + extension.toLowerCase());
      if (isExecutable(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}
