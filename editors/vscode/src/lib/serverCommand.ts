/**
 * Finding the lintel that runs `lintel serve`, in the order a user expects (docs/editors.md, "Which lintel runs"):
 * the `lintel.server.path` / `lintel.server.interpreter` settings, the workspace folder's `.venv` / `venv`, the
 * interpreter selected in the Python extension, `lintel` on PATH, `python3 -m lintel`, and last the lintel bundled in
 * the self-contained .vsix. Each candidate is probed with `serve --check` (its version, and whether the server's
 * dependencies are there; lintel/cli.py) before it is used: vscode-languageclient is
 * never started with a command that cannot start. Every step is reported, so what was tried can be shown.
 */
import * as path from 'node:path';

export interface ServerSettings {
  /** `lintel.server.path`: the lintel executable. */
  readonly path: string;
  /** `lintel.server.interpreter`: a Python interpreter and its arguments. */
  readonly interpreter: readonly string[];
}

/** A way to run lintel: `command ...args serve` runs the server, `command ...args serve --check` probes it. */
export interface Candidate {
  /** Which step found it, for the log and the notification: `lintel.server.path`, `.venv`, `PATH`… */
  readonly via: string;
  readonly command: string;
  readonly args: readonly string[];
}

/** The arguments that probe a candidate: `lintel serve --check` prints `lintel <version>` when it can serve. */
export const PROBE = ['serve', '--check'] as const;

export type Probe = { ok: true; version: string } | { ok: false; reason: string };

/** The interpreter the Python extension has selected for a folder: absent when that extension is not installed. */
export type SelectedInterpreter =
  { kind: 'absent' } | { kind: 'selected'; path: string } | { kind: 'failed'; reason: string };

export interface Host {
  readonly platform: NodeJS.Platform;
  readonly home: string;
  /** The workspace folders' paths; the first is `${workspaceFolder}`. */
  readonly workspaceFolders: readonly string[];
  /** Untrusted, nothing from the workspace runs: its venvs and the interpreter picked for it are skipped. */
  readonly trusted: boolean;
  /** `lintel_main.py` of the bundled lintel (the linux-x64 .vsix), when this build has one. */
  readonly bundle?: string;
  /** A remote window's kind (`vscode.env.remoteName`: `ssh-remote`, `wsl`…; code-server's windows are remote). */
  readonly remote?: string;
  /** The executable's full path when `name` is on PATH. */
  findExecutable(name: string): string | undefined;
  isExecutable(file: string): boolean;
  /** Runs `command ...args` (with PROBE last) and says whether a lintel answered. */
  probe(command: string, args: readonly string[]): Promise<Probe>;
  selectedInterpreter(folder: string | undefined): Promise<SelectedInterpreter>;
}

/** One step of the search: the candidate it tried (if any), and why it was passed over. */
export interface Attempt {
  readonly via: string;
  /** The command line tried, or what was looked for. */
  readonly what: string;
  readonly failure?: string;
}

export type Discovery =
  | { readonly found: Candidate; readonly version: string; readonly tried: readonly Attempt[] }
  | { readonly found: undefined; readonly tried: readonly Attempt[] };

/** Python versions the bundle is tried with after `python3`, newest first (it needs 3.10 or later). */
const BUNDLE_PYTHONS = ['python3', 'python3.14', 'python3.13', 'python3.12', 'python3.11', 'python3.10'];

/** `${workspaceFolder}`, `${userHome}` and a leading `~`, as in VS Code's own settings. */
export function expandVariables(value: string, host: Pick<Host, 'home' | 'workspaceFolders'>): string {
  let out = value.replace(/\$\{userHome\}/g, host.home);
  const folder = host.workspaceFolders[0];
  if (folder !== undefined) {
    out = out.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
    out = host.home + out.slice(1);
  }
  return out;
}

export function commandLine(candidate: Candidate, ...extra: string[]): string {
  return [candidate.command, ...candidate.args, ...extra].join(' ');
}

/** The settings' candidate, if one is set: an explicit choice is the only one tried (a broken setting is an error,
 * not a reason to run some other lintel). */
export function fromSettings(settings: ServerSettings, host: Host): Candidate | undefined {
  const explicit = settings.path.trim();
  if (explicit) {
    return { via: 'lintel.server.path', command: expandVariables(explicit, host), args: [] };
  }
  const [interpreter, ...rest] = settings.interpreter.filter((part) => part.trim() !== '');
  if (interpreter !== undefined) {
    const args = [...rest.map((arg) => expandVariables(arg, host)), '-m', 'lintel'];
    return { via: 'lintel.server.interpreter', command: expandVariables(interpreter, host), args };
  }
  return undefined;
}

/** The search, step by step: each yields the candidates it has (probed in turn), or a reason it has none. */
type Step = () => Promise<Candidate[] | string>;

function steps(host: Host): Step[] {
  const lib = host.platform === 'win32' ? path.win32 : path.posix;
  const [bin, exe] = host.platform === 'win32' ? ['Scripts', '.exe'] : ['bin', ''];
  const venvs: Step = () => {
    if (!host.trusted) {
      return Promise.resolve('skipped: the workspace is not trusted');
    }
    const found = host.workspaceFolders.flatMap((folder) =>
      ['.venv', 'venv'].flatMap((name): Candidate[] => {
        const dir = lib.join(folder, name, bin);
        const via = `${name} in ${folder}`;
        if (host.isExecutable(lib.join(dir, `lintel${exe}`))) {
          return [{ via, command: lib.join(dir, `lintel${exe}`), args: [] }];
        }
        const python = lib.join(dir, `python${exe}`);
        return host.isExecutable(python) ? [{ via, command: python, args: ['-m', 'lintel'] }] : [];
      }),
    );
    return Promise.resolve(found.length > 0 ? found : 'no .venv or venv in the workspace folder');
  };
  const pythonExtension: Step = async () => {
    if (!host.trusted) {
      return 'skipped: the workspace is not trusted';
    }
    const selected = await host.selectedInterpreter(host.workspaceFolders[0]);
    if (selected.kind === 'absent') {
      return 'the Python extension is not installed';
    }
    if (selected.kind === 'failed') {
      return selected.reason;
    }
    return [{ via: 'the Python extension', command: selected.path, args: ['-m', 'lintel'] }];
  };
  const onPath: Step = () => {
    const lintel = host.findExecutable('lintel');
    return Promise.resolve(lintel ? [{ via: 'PATH', command: lintel, args: [] }] : 'lintel is not on PATH');
  };
  const python = host.platform === 'win32' ? 'python' : 'python3';
  const pythonModule: Step = () => {
    const found = host.findExecutable(python);
    return Promise.resolve(
      found ? [{ via: `${python} -m lintel`, command: found, args: ['-m', 'lintel'] }] : `${python} is not on PATH`,
    );
  };
  const bundled: Step = () => {
    const bundle = host.bundle;
    if (bundle === undefined) {
      return Promise.resolve('none in this build (the linux-x64 .vsix carries one)');
    }
    const pythons = [...new Set(BUNDLE_PYTHONS.map((name) => host.findExecutable(name)))];
    const found = pythons.flatMap((exe): Candidate[] =>
      exe ? [{ via: 'the bundled lintel', command: exe, args: ['-I', bundle] }] : [],
    );
    return Promise.resolve(found.length > 0 ? found : 'no python3 on PATH to run it');
  };
  return [venvs, pythonExtension, onPath, pythonModule, bundled];
}

const STEP_NAMES = ['project venv', 'the Python extension', 'PATH', `python -m lintel`, 'the bundled lintel'];

/**
 * The first candidate that passes the probe, with every attempt on the way; `log` hears each as it is made.
 * A candidate already tried (the Python extension selected the project's venv) is not probed twice.
 */
export async function findServer(
  settings: ServerSettings,
  host: Host,
  log: (attempt: Attempt) => void = () => undefined,
): Promise<Discovery> {
  const tried: Attempt[] = [];
  const note = (attempt: Attempt): void => {
    tried.push(attempt);
    log(attempt);
  };
  const probed = new Set<string>();
  const attempt = async (candidate: Candidate): Promise<string | undefined> => {
    const line = commandLine(candidate);
    if (probed.has(line)) {
      note({ via: candidate.via, what: line, failure: 'already tried' });
      return undefined;
    }
    probed.add(line);
    const probe = await host.probe(candidate.command, candidate.args);
    note({ via: candidate.via, what: line, failure: probe.ok ? undefined : probe.reason });
    return probe.ok ? probe.version : undefined;
  };
  const explicit = fromSettings(settings, host);
  if (explicit !== undefined) {
    const version = await attempt(explicit);
    return version !== undefined ? { found: explicit, version, tried } : { found: undefined, tried };
  }
  const all = steps(host);
  for (const [index, step] of all.entries()) {
    const candidates = await step();
    if (typeof candidates === 'string') {
      note({ via: STEP_NAMES[index] ?? 'step', what: '-', failure: candidates });
      continue;
    }
    for (const candidate of candidates) {
      const version = await attempt(candidate);
      if (version !== undefined) {
        return { found: candidate, version, tried };
      }
    }
  }
  return { found: undefined, tried };
}

/** One line per attempt, for the log and the notification: `PATH: /usr/bin/lintel — exited 1: …`. */
export function describeAttempt(attempt: Attempt): string {
  const what = attempt.what === '-' ? '' : `: ${attempt.what}`;
  return `${attempt.via}${what} — ${attempt.failure ?? 'ok'}`;
}

/** The notification when nothing works: what was tried, each with why it failed, in one paragraph. */
export function notFoundMessage(tried: readonly Attempt[], remote?: string): string {
  const lines = tried.map(describeAttempt);
  const message = `Lintel: no lintel server could be started. Tried: ${lines.join('; ')}.`;
  return remote === undefined ? message : `${message} ${remoteSettingsNote(remote)}`;
}

/**
 * In a remote window VS Code reads machine settings (`lintel.server.*` are `machine-overridable`: a path on one machine
 * means nothing on another) from the Remote and workspace settings only, never from the User settings.
 */
export function remoteSettingsNote(remote: string): string {
  return (
    `This is a remote window (${remote}): lintel.server.path and lintel.server.interpreter are read from the ` +
    'Remote or workspace settings, not the User settings.'
  );
}

/** Why a probe says no, from its exit and output: the last line of stderr says most. */
export function probeOutcome(exit: {
  code: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  error?: { code?: string; message: string };
  timedOutAfter?: number;
}): Probe {
  if (exit.timedOutAfter !== undefined) {
    return { ok: false, reason: `no answer to serve --check in ${exit.timedOutAfter / 1000} s` };
  }
  if (exit.error?.code === 'ENOENT') {
    return { ok: false, reason: 'not found' };
  }
  if (exit.error?.code === 'EACCES') {
    return { ok: false, reason: 'not executable' };
  }
  const lastLine = (text: string): string =>
    text
      .split(/\r?\n/)
      .map((line) => line.trim())
      .filter(Boolean)
      .pop() ?? '';
  const version = /^lintel (\S+)/m.exec(exit.stdout);
  if (exit.code === 0 && version?.[1] !== undefined) {
    return { ok: true, version: version[1] };
  }
  const said = lastLine(exit.stderr) || lastLine(exit.stdout) || exit.error?.message || '';
  const status = exit.code !== null ? `exited ${exit.code}` : `killed by ${exit.signal ?? 'a signal'}`;
  if (exit.code === 0) {
    return { ok: false, reason: `not a lintel: serve --check printed "${said}"` };
  }
  return { ok: false, reason: said ? `${status}: ${said}` : status };
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
