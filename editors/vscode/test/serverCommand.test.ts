import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expandVariables, findOnPath, type Host, isAvailable, resolveServerCommand } from '../src/lib/serverCommand';

function host(onPath: Record<string, string> = {}, platform: NodeJS.Platform = 'linux'): Host {
  return {
    platform,
    home: '/home/ada',
    workspaceFolder: '/work/app',
    findExecutable: (name) => onPath[name],
    isExecutable: (file) => Object.values(onPath).includes(file),
  };
}

describe('resolveServerCommand', () => {
  it('prefers lintel.server.path, with variables expanded', () => {
    const command = resolveServerCommand({ path: '~/bin/lintel', interpreter: ['/usr/bin/python3'] }, host());
    assert.deepEqual(command, { command: '/home/ada/bin/lintel', args: ['serve'], via: 'lintel.server.path' });
  });

  it('runs `-m lintel serve` with the configured interpreter and its arguments', () => {
    const command = resolveServerCommand(
      { path: '  ', interpreter: ['${workspaceFolder}/.venv/bin/python', '-X', 'utf8'] },
      host({ lintel: '/usr/bin/lintel' }),
    );
    assert.deepEqual(command, {
      command: '/work/app/.venv/bin/python',
      args: ['-X', 'utf8', '-m', 'lintel', 'serve'],
      via: 'lintel.server.interpreter',
    });
  });

  it('uses lintel from PATH when nothing is configured', () => {
    const command = resolveServerCommand({ path: '', interpreter: [] }, host({ lintel: '/usr/local/bin/lintel' }));
    assert.deepEqual(command, { command: '/usr/local/bin/lintel', args: ['serve'], via: 'PATH' });
  });

  it('falls back to python3 -m lintel (python on Windows)', () => {
    assert.deepEqual(resolveServerCommand({ path: '', interpreter: [''] }, host()), {
      command: 'python3',
      args: ['-m', 'lintel', 'serve'],
      via: 'python -m lintel',
    });
    assert.equal(resolveServerCommand({ path: '', interpreter: [] }, host({}, 'win32')).command, 'python');
  });
});

describe('isAvailable', () => {
  it('checks paths directly and bare names on PATH', () => {
    const found = host({ lintel: '/usr/bin/lintel' });
    assert.equal(isAvailable('/usr/bin/lintel', found), true);
    assert.equal(isAvailable('/opt/lintel', found), false);
    assert.equal(isAvailable('lintel', found), true);
    assert.equal(isAvailable('python3', found), false);
    assert.equal(isAvailable('C:\\lintel.exe', host({ x: 'C:\\lintel.exe' }, 'win32')), true);
  });
});

describe('expandVariables', () => {
  it('expands ${userHome} and a leading ~ only', () => {
    assert.equal(expandVariables('${userHome}/x', host()), '/home/ada/x');
    assert.equal(expandVariables('~', host()), '/home/ada');
    assert.equal(expandVariables('/opt/~lintel', host()), '/opt/~lintel');
  });

  it('leaves ${workspaceFolder} alone without a folder', () => {
    const noFolder: Host = { ...host(), workspaceFolder: undefined };
    assert.equal(expandVariables('${workspaceFolder}/lintel', noFolder), '${workspaceFolder}/lintel');
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
