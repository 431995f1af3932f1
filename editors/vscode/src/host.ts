/**
 * The machine as the server search sees it (lib/serverCommand.Host): PATH, files, `serve --check` probes, and the
 * interpreter selected in the Python extension (ms-python.python's public API, only when it is installed).
 */
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findOnPath, type Host, PROBE, type Probe, probeOutcome, type SelectedInterpreter } from './lib/serverCommand';

/** A cold first import of lintel on a slow disk stays well inside this; a hung interpreter does not. */
const PROBE_TIMEOUT_MS = 20_000;
/** The Python extension activates itself on first use; past this it is passed over (and said so). */
const PYTHON_EXTENSION_TIMEOUT_MS = 10_000;
const PYTHON_EXTENSION = 'ms-python.python';

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

export function probe(command: string, args: readonly string[], cwd: string | undefined): Promise<Probe> {
  return new Promise((resolve) => {
    execFile(
      command,
      [...args, ...PROBE],
      { cwd, env: process.env, timeout: PROBE_TIMEOUT_MS, windowsHide: true, encoding: 'utf8' },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: string | number; killed?: boolean; signal?: string }) | null;
        const timedOut = failed?.killed === true && failed.signal === 'SIGTERM';
        resolve(
          probeOutcome({
            code: failed === null ? 0 : typeof failed.code === 'number' ? failed.code : null,
            signal: failed?.signal ?? null,
            stdout,
            stderr,
            error:
              failed && typeof failed.code === 'string' ? { code: failed.code, message: failed.message } : undefined,
            timedOutAfter: timedOut ? PROBE_TIMEOUT_MS : undefined,
          }),
        );
      },
    );
  });
}

/** The parts of the Python extension's API used here (its `environments` API, stable since 2023). */
interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(environment: { path: string }): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
  };
}

async function selectedInterpreter(folder: string | undefined): Promise<SelectedInterpreter> {
  const extension = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  if (extension === undefined) {
    return { kind: 'absent' };
  }
  const lookup = async (): Promise<SelectedInterpreter> => {
    const api = extension.isActive ? extension.exports : await extension.activate();
    const environments = api?.environments;
    if (environments === undefined) {
      return { kind: 'failed', reason: 'the Python extension has no environments API' };
    }
    const active = environments.getActiveEnvironmentPath(folder === undefined ? undefined : vscode.Uri.file(folder));
    const resolved = await environments.resolveEnvironment(active);
    const executable = resolved?.executable.uri?.fsPath;
    return executable
      ? { kind: 'selected', path: executable }
      : { kind: 'failed', reason: `the Python extension could not resolve ${active.path}` };
  };
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<SelectedInterpreter>((resolve) => {
    timer = setTimeout(
      () =>
        resolve({
          kind: 'failed',
          reason: `the Python extension did not answer in ${PYTHON_EXTENSION_TIMEOUT_MS / 1000} s`,
        }),
      PYTHON_EXTENSION_TIMEOUT_MS,
    );
  });
  try {
    return await Promise.race([lookup(), timeout]);
  } catch (error) {
    return {
      kind: 'failed',
      reason: `the Python extension failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    clearTimeout(timer);
  }
}

/** The bundled lintel's bootstrap in this build of the extension, if it has one (the linux-x64 .vsix). */
export function bundledLintel(extensionPath: string): string | undefined {
  const bootstrap = path.join(extensionPath, 'bundled', 'lintel_main.py');
  return fs.existsSync(bootstrap) ? bootstrap : undefined;
}

/** The host now: folders and trust are read each time, for a search that runs again after they change. */
export function currentHost(extensionPath: string): Host {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((folder) => folder.uri.fsPath);
  return {
    platform: process.platform,
    home: os.homedir(),
    workspaceFolders: folders,
    trusted: vscode.workspace.isTrusted,
    bundle: bundledLintel(extensionPath),
    remote: vscode.env.remoteName,
    findExecutable: (name) => findOnPath(name, process.env, process.platform, isExecutable),
    isExecutable,
    probe: (command, args) => probe(command, args, folders[0]),
    selectedInterpreter,
  };
}
