import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import {
  type Connected,
  HOW_TO_INSTALL,
  LATE_SETTINGS,
  Launcher,
  type LauncherParts,
  OPEN_SETTINGS,
} from '../src/launcher';
import type { Candidate, Host, Probe } from '../src/lib/serverCommand';
import * as vscode from './stubs/vscode';

/** A machine with nothing but python3 (no lintel in it) and what each test adds; probes can be held. */
class Machine {
  readonly answers = new Map<string, Probe>();
  readonly probed: string[] = [];
  /** While set, every probe waits for it. */
  hold: Promise<void> | undefined;

  host(): Host {
    return {
      platform: 'linux',
      home: '/home/ada',
      workspaceFolders: ['/work/app'],
      trusted: true,
      findExecutable: (name) => (name === 'python3' ? '/usr/bin/python3' : undefined),
      isExecutable: () => false,
      probe: async (command, args) => {
        const line = [command, ...args].join(' ');
        this.probed.push(line);
        await this.hold;
        return this.answers.get(line) ?? { ok: false, reason: 'exited 1: No module named lintel' };
      },
      selectedInterpreter: () => Promise.resolve({ kind: 'absent' }),
    };
  }
}

/** The server side: each connect, each stop; `failing` commands do not start. */
class Servers {
  readonly connected: string[] = [];
  readonly stopped: string[] = [];
  readonly failing = new Set<string>();

  connect(candidate: Candidate): Promise<Connected<string>> {
    const line = [candidate.command, ...candidate.args].join(' ');
    this.connected.push(line);
    if (this.failing.has(line)) {
      return Promise.reject(new Error('Connection to server got closed'));
    }
    return Promise.resolve({
      client: line,
      stop: () => {
        this.stopped.push(line);
        return Promise.resolve();
      },
    });
  }
}

let machine: Machine;
let servers: Servers;
let output: vscode.LogOutput;
let statuses: string[];
let restarts: string[];
let launcher: Launcher<string>;

beforeEach(() => {
  vscode.open(['/work/app']);
  machine = new Machine();
  servers = new Servers();
  output = new vscode.LogOutput();
  statuses = [];
  restarts = [];
  const parts = {
    output,
    host: () => machine.host(),
    connect: (candidate: Candidate) => servers.connect(candidate),
    status: (state: 'starting' | 'stopped') => statuses.push(state),
    readme: vscode.Uri.file('/ext/README.md'),
    restart: (why: string) => {
      restarts.push(why);
      return launcher.start(why);
    },
  };
  launcher = new Launcher(parts as unknown as LauncherParts<string>);
});

afterEach(async () => {
  await launcher.stop();
});

/** Lets the notification's `.then` run. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Launcher: nothing works', () => {
  it('shows one error notification saying what was tried, and starts nothing', async () => {
    await launcher.start();
    await settle();
    assert.equal(vscode.asked.errors.length, 1);
    const [error] = vscode.asked.errors;
    assert.deepEqual(error?.buttons, [OPEN_SETTINGS, HOW_TO_INSTALL]);
    assert.match(error?.message ?? '', /python3 -m lintel — exited 1: No module named lintel/);
    assert.match(error?.message ?? '', /lintel is not on PATH/);
    assert.deepEqual(servers.connected, []);
    assert.equal(launcher.client, undefined);
    assert.deepEqual(statuses, ['starting', 'stopped']);
    assert.equal(output.lines.filter((line) => line.startsWith('error')).length, 1);
  });

  it('does not try again by itself', async () => {
    await launcher.start();
    await settle();
    await settle();
    assert.deepEqual(machine.probed, ['/usr/bin/python3 -m lintel']);
    assert.equal(vscode.asked.errors.length, 1);
  });

  it('Open Settings opens the lintel.server settings', async () => {
    vscode.click(OPEN_SETTINGS);
    await launcher.start();
    await settle();
    assert.deepEqual(vscode.asked.commands, [{ name: 'workbench.action.openSettings', args: ['lintel.server'] }]);
  });

  it('How to install opens the bundled README', async () => {
    vscode.click(HOW_TO_INSTALL);
    await launcher.start();
    await settle();
    assert.equal(vscode.asked.commands[0]?.name, 'markdown.showPreview');
    assert.equal(String(vscode.asked.commands[0]?.args[0]), 'file:/ext/README.md');
  });
});

describe('Launcher: settings', () => {
  it('a lintel.server change starts the search again with the new value', async () => {
    await launcher.start();
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    await launcher.start('a lintel.server setting changed');
    await settle();
    assert.deepEqual(servers.connected, ['/opt/lintel']);
    assert.equal(launcher.client, '/opt/lintel');
    assert.equal(vscode.asked.errors.length, 1); // the first search's, not another
  });

  it('settings that arrive while the first search runs supersede it: no notification for the stale one', async () => {
    let release = (): void => undefined;
    machine.hold = new Promise((resolve) => {
      release = resolve;
    });
    const first = launcher.start('activation');
    await settle(); // the first search is probing, with the defaults
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    const second = launcher.start('a lintel.server setting changed');
    release();
    await Promise.all([first, second]);
    await settle();
    assert.deepEqual(vscode.asked.errors, []);
    assert.deepEqual(servers.connected, ['/opt/lintel']);
  });

  it('a restart stops the running server before starting the next', async () => {
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    await launcher.start();
    vscode.setSetting('lintel.server.path', '/opt/other');
    machine.answers.set('/opt/other', { ok: true, version: '0.2.0' });
    await launcher.start('a lintel.server setting changed');
    assert.deepEqual(servers.stopped, ['/opt/lintel']);
    assert.deepEqual(servers.connected, ['/opt/lintel', '/opt/other']);
    await launcher.stop();
    assert.deepEqual(servers.stopped, ['/opt/lintel', '/opt/other']);
    assert.equal(launcher.client, undefined);
  });
});

describe('Launcher: settings that change with no event, or with one that does not name them', () => {
  const saved = { ...LATE_SETTINGS };
  beforeEach(() => {
    Object.assign(LATE_SETTINGS, { everyMs: 5, forMs: 300, settleMs: 20 });
  });
  afterEach(() => {
    Object.assign(LATE_SETTINGS, saved);
  });
  const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

  it('are read again after activation: the search starts over with them', async () => {
    await launcher.start();
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    await sleep(100);
    await settle();
    assert.deepEqual(restarts, ['a lintel.server setting changed']);
    assert.equal(launcher.client, '/opt/lintel');
    assert.ok(output.lines.some((line) => line.includes('the last search used path ""')));
  });

  it('a value gone for less than the settling time changes nothing', async () => {
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    await launcher.start();
    vscode.setSetting('lintel.server.path', undefined);
    launcher.settingsMayHaveChanged();
    await sleep(5);
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    await sleep(60);
    assert.deepEqual(restarts, []);
    assert.equal(launcher.client, '/opt/lintel');
  });

  it('an event whatever it names starts over when the values differ, after the readings ended', async () => {
    LATE_SETTINGS.forMs = 10;
    await launcher.start();
    await sleep(40);
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    await sleep(40);
    assert.deepEqual(restarts, []); // no event, no reading: not seen
    launcher.settingsMayHaveChanged();
    await sleep(60);
    await settle();
    assert.deepEqual(restarts, ['a lintel.server setting changed']);
    assert.equal(launcher.client, '/opt/lintel');
  });

  it('an event with the same values starts nothing', async () => {
    await launcher.start();
    launcher.settingsMayHaveChanged();
    await sleep(60);
    assert.deepEqual(restarts, []);
  });
});

describe('Launcher: a server that passes the probe but does not start', () => {
  it('is started once and said once in the log, without a notification of its own', async () => {
    vscode.setSetting('lintel.server.path', '/opt/lintel');
    machine.answers.set('/opt/lintel', { ok: true, version: '0.1.0' });
    servers.failing.add('/opt/lintel');
    await launcher.start();
    await settle();
    assert.deepEqual(servers.connected, ['/opt/lintel']);
    assert.deepEqual(vscode.asked.errors, []); // vscode-languageclient showed its own
    const errors = output.lines.filter((line) => line.startsWith('error'));
    assert.deepEqual(errors, [
      'error /opt/lintel serve answered serve --check but did not start: Connection to server got closed',
    ]);
    assert.equal(launcher.client, undefined);
    assert.deepEqual(statuses, ['starting', 'stopped']);
  });
});
