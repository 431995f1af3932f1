import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type Attempt,
  describeAttempt,
  expandVariables,
  findOnPath,
  findServer,
  type Host,
  notFoundMessage,
  type Probe,
  probeOutcome,
  type SelectedInterpreter,
} from '../src/lib/serverCommand';

const NO_LINTEL: Probe = { ok: false, reason: 'exited 1: No module named lintel' };

/**
 * A machine: `onPath` names → paths, `files` the executables that exist, `answers` what each probed command line
 * (without the probe's arguments) says; anything else is "not found".
 */
function machine(
  options: {
    onPath?: Record<string, string>;
    files?: string[];
    answers?: Record<string, Probe>;
    interpreter?: SelectedInterpreter;
    trusted?: boolean;
    bundle?: string;
    platform?: NodeJS.Platform;
  } = {},
): Host & { probed: string[] } {
  const onPath = options.onPath ?? {};
  const files = new Set([...(options.files ?? []), ...Object.values(onPath)]);
  const probed: string[] = [];
  return {
    probed,
    platform: options.platform ?? 'linux',
    home: '/home/ada',
    workspaceFolders: ['/work/app'],
    trusted: options.trusted ?? true,
    bundle: options.bundle,
    findExecutable: (name) => onPath[name],
    isExecutable: (file) => files.has(file),
    probe: (command, args) => {
      const line = [command, ...args].join(' ');
      probed.push(line);
      return Promise.resolve(options.answers?.[line] ?? { ok: false, reason: 'not found' });
    },
    selectedInterpreter: () => Promise.resolve(options.interpreter ?? { kind: 'absent' }),
  };
}

const NOTHING = { path: '', interpreter: [] };
const ok = (version = '0.1.0'): Probe => ({ ok: true, version });

describe('findServer: the order', () => {
  it('takes lintel.server.path first, with variables expanded, and probes it', async () => {
    const host = machine({ answers: { '/home/ada/bin/lintel': ok() }, onPath: { lintel: '/usr/bin/lintel' } });
    const found = await findServer({ path: '~/bin/lintel', interpreter: ['/usr/bin/python3'] }, host);
    assert.deepEqual(found.found, { via: 'lintel.server.path', command: '/home/ada/bin/lintel', args: [] });
    assert.deepEqual(host.probed, ['/home/ada/bin/lintel']);
  });

  it('runs `-m lintel` with the configured interpreter and its arguments', async () => {
    const line = '/work/app/.venv/bin/python -X utf8 -m lintel';
    const host = machine({ answers: { [line]: ok() } });
    const found = await findServer(
      { path: ' ', interpreter: ['${workspaceFolder}/.venv/bin/python', '-X', 'utf8'] },
      host,
    );
    assert.equal(found.found?.via, 'lintel.server.interpreter');
    assert.deepEqual(found.found?.args, ['-X', 'utf8', '-m', 'lintel']);
  });

  it('stops at a broken setting: the user chose it, no other lintel runs instead', async () => {
    const host = machine({ onPath: { lintel: '/usr/bin/lintel' }, answers: { '/usr/bin/lintel': ok() } });
    const found = await findServer({ path: '/opt/lintel', interpreter: [] }, host);
    assert.equal(found.found, undefined);
    assert.deepEqual(found.tried, [{ via: 'lintel.server.path', what: '/opt/lintel', failure: 'not found' }]);
  });

  it('finds the project venv before the Python extension, PATH, python3 and the bundle', async () => {
    const venv = '/work/app/.venv/bin/lintel';
    const everything = {
      files: [venv],
      onPath: { lintel: '/usr/bin/lintel', python3: '/usr/bin/python3' },
      interpreter: { kind: 'selected', path: '/opt/py/bin/python' } as const,
      bundle: '/ext/bundled/lintel_main.py',
    };
    const answers: Record<string, Probe> = {
      [venv]: ok('1'),
      '/opt/py/bin/python -m lintel': ok('2'),
      '/usr/bin/lintel': ok('3'),
      '/usr/bin/python3 -m lintel': ok('4'),
      '/usr/bin/python3 -I /ext/bundled/lintel_main.py': ok('5'),
    };
    // Take each winner away in turn: the next one in the order wins.
    const order: string[] = [];
    const failing = new Set<string>();
    for (let round = 0; round < 5; round += 1) {
      const host = machine({
        ...everything,
        answers: Object.fromEntries(Object.entries(answers).map(([k, v]) => [k, failing.has(k) ? NO_LINTEL : v])),
      });
      const found = await findServer(NOTHING, host);
      assert.ok(found.found, `round ${round}: nothing found`);
      order.push(`${found.found.via} ${found.version}`);
      failing.add([found.found.command, ...found.found.args].join(' '));
    }
    assert.deepEqual(order, [
      '.venv in /work/app 1',
      'the Python extension 2',
      'PATH 3',
      'python3 -m lintel 4',
      'the bundled lintel 5',
    ]);
  });

  it('runs `python -m lintel` in a venv without a lintel script, .venv before venv', async () => {
    const host = machine({
      files: ['/work/app/.venv/bin/python', '/work/app/venv/bin/lintel'],
      answers: { '/work/app/venv/bin/lintel': ok() },
    });
    const found = await findServer(NOTHING, host);
    assert.equal(found.found?.command, '/work/app/venv/bin/lintel');
    assert.deepEqual(host.probed.slice(0, 2), ['/work/app/.venv/bin/python -m lintel', '/work/app/venv/bin/lintel']);
  });

  it('runs nothing of an untrusted workspace: no venv, no interpreter picked for it', async () => {
    const host = machine({
      trusted: false,
      files: ['/work/app/.venv/bin/lintel'],
      interpreter: { kind: 'selected', path: '/work/app/.venv/bin/python' },
      onPath: { lintel: '/usr/bin/lintel' },
      answers: { '/usr/bin/lintel': ok() },
    });
    const found = await findServer(NOTHING, host);
    assert.equal(found.found?.via, 'PATH');
    assert.deepEqual(host.probed, ['/usr/bin/lintel']);
    assert.match(describeAttempt(found.tried[0] as Attempt), /not trusted/);
  });

  it('does not probe the same command twice (the Python extension picked the project venv)', async () => {
    const python = '/work/app/.venv/bin/python';
    const host = machine({ files: [python], interpreter: { kind: 'selected', path: python } });
    const found = await findServer(NOTHING, host);
    assert.equal(host.probed.filter((line) => line === `${python} -m lintel`).length, 1);
    assert.equal(found.tried[1]?.failure, 'already tried');
  });

  it('tries the bundle with the newer pythons when python3 is too old', async () => {
    const bundle = '/ext/bundled/lintel_main.py';
    const host = machine({
      bundle,
      onPath: { python3: '/usr/bin/python3', 'python3.12': '/usr/bin/python3.12' },
      answers: {
        [`/usr/bin/python3 -I ${bundle}`]: { ok: false, reason: 'exited 1: lintel needs Python >= 3.10' },
        [`/usr/bin/python3.12 -I ${bundle}`]: ok(),
      },
    });
    const found = await findServer(NOTHING, host);
    assert.equal(found.found?.command, '/usr/bin/python3.12');
  });
});

describe('findServer: when nothing works', () => {
  it('reports every step with why it failed', async () => {
    const host = machine({
      onPath: { python3: '/usr/bin/python3' },
      answers: { '/usr/bin/python3 -m lintel': NO_LINTEL },
    });
    const found = await findServer(NOTHING, host);
    assert.equal(found.found, undefined);
    assert.deepEqual(found.tried.map(describeAttempt), [
      'project venv — no .venv or venv in the workspace folder',
      'the Python extension — the Python extension is not installed',
      'PATH — lintel is not on PATH',
      'python3 -m lintel: /usr/bin/python3 -m lintel — exited 1: No module named lintel',
      'the bundled lintel — none in this build (the linux-x64 .vsix carries one)',
    ]);
    const message = notFoundMessage(found.tried);
    assert.match(message, /^Lintel: no lintel server could be started\. Tried: project venv/);
    assert.match(message, /No module named lintel/);
    assert.doesNotMatch(message, /remote window/);
    // A remote window reads machine settings from the Remote settings: the message says where to set them.
    assert.match(
      notFoundMessage(found.tried, 'ssh-remote'),
      /\. This is a remote window \(ssh-remote\): lintel\.server\.path and lintel\.server\.interpreter are read from the Remote or workspace settings, not the User settings\.$/,
    );
  });

  it('says why the Python extension gave nothing', async () => {
    const host = machine({ interpreter: { kind: 'failed', reason: 'the Python extension did not answer in 10 s' } });
    const found = await findServer(NOTHING, host);
    assert.equal(found.tried[1]?.failure, 'the Python extension did not answer in 10 s');
  });

  it('logs each attempt as it is made', async () => {
    const seen: string[] = [];
    await findServer(NOTHING, machine(), (attempt) => seen.push(attempt.via));
    assert.deepEqual(seen, ['project venv', 'the Python extension', 'PATH', 'python -m lintel', 'the bundled lintel']);
  });
});

describe('probeOutcome', () => {
  it('accepts `lintel <version>` with exit 0', () => {
    assert.deepEqual(probeOutcome({ code: 0, stdout: 'lintel 0.1.0\n', stderr: '' }), { ok: true, version: '0.1.0' });
  });

  it('says the last line of stderr of a failed run', () => {
    const stderr = 'Traceback…\n  File "x"\nModuleNotFoundError: No module named lintel\n';
    assert.deepEqual(probeOutcome({ code: 1, stdout: '', stderr }), {
      ok: false,
      reason: 'exited 1: ModuleNotFoundError: No module named lintel',
    });
  });

  it('tells missing, not executable, killed, timed out and not-a-lintel apart', () => {
    const base = { code: null, stdout: '', stderr: '' };
    assert.equal(reason({ ...base, error: { code: 'ENOENT', message: 'spawn x ENOENT' } }), 'not found');
    assert.equal(reason({ ...base, error: { code: 'EACCES', message: 'spawn x EACCES' } }), 'not executable');
    assert.equal(reason({ ...base, signal: 'SIGKILL' }), 'killed by SIGKILL');
    assert.equal(reason({ ...base, timedOutAfter: 20000 }), 'no answer to serve --check in 20 s');
    assert.equal(
      reason({ code: 0, stdout: 'ruff 0.17.6\n', stderr: '' }),
      'not a lintel: serve --check printed "ruff 0.17.6"',
    );
  });
});

function reason(exit: Parameters<typeof probeOutcome>[0]): string {
  const probe = probeOutcome(exit);
  assert.equal(probe.ok, false);
  return probe.ok ? '' : probe.reason;
}

describe('expandVariables', () => {
  const host = { home: '/home/ada', workspaceFolders: ['/work/app'] };

  it('expands ${userHome}, ${workspaceFolder} and a leading ~ only', () => {
    assert.equal(expandVariables('${userHome}/x', host), '/home/ada/x');
    assert.equal(expandVariables('${workspaceFolder}/.venv', host), '/work/app/.venv');
    assert.equal(expandVariables('~', host), '/home/ada');
    assert.equal(expandVariables('/opt/~lintel', host), '/opt/~lintel');
  });

  it('leaves ${workspaceFolder} alone without a folder', () => {
    assert.equal(
      expandVariables('${workspaceFolder}/lintel', { ...host, workspaceFolders: [] }),
      '${workspaceFolder}/lintel',
    );
  });
});

describe('findOnPath', () => {
  it('returns the first executable match, skipping empty PATH entries', () => {
    const executables = new Set(['/opt/bin/lintel', '/usr/bin/lintel']);
    const found = findOnPath('lintel', { PATH: ':/usr/local/bin:/opt/bin:/usr/bin' }, 'linux', (f) =>
      executables.has(f),
    );
    assert.equal(found, '/opt/bin/lintel');
  });

  it('tries PATHEXT extensions on Windows', () => {
    const found = findOnPath(
      'lintel',
      { Path: 'C:\\Python\\Scripts;C:\\tools', PATHEXT: '.COM;.EXE' },
      'win32',
      (file) => file === 'C:\\Python\\Scripts\\lintel.exe',
    );
    assert.equal(found, 'C:\\Python\\Scripts\\lintel.exe');
  });

  it('answers undefined when nothing matches', () => {
    assert.equal(
      findOnPath('lintel', {}, 'linux', () => true),
      undefined,
    );
  });
});
