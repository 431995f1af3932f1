import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import packageJson from '../package.json';
import {
  CLIENT_SECTION,
  initializationOptions,
  isSetByUser,
  serverSettingKeys,
  toServerSettings,
} from '../src/lib/settings';

const sections = packageJson.contributes.configuration;

describe('serverSettingKeys', () => {
  const keys = serverSettingKeys(sections);

  it("lists the server model's settings from package.json, camelCase and without the prefix", () => {
    for (const key of [
      'timeouts.test',
      'languages.python.lint',
      'editor.lintOnSave',
      'validators',
      'validatorConcurrency',
    ]) {
      assert.ok(keys.includes(key), key);
    }
  });

  it("leaves out the extension's own settings", () => {
    const client = sections.find((section) => section.id === CLIENT_SECTION);
    assert.ok(client);
    assert.ok(Object.keys(client.properties).includes('lintel.server.path'));
    assert.ok(!keys.some((key) => key.startsWith('server.') || key.startsWith('trace.')));
  });
});

describe('toServerSettings', () => {
  it('nests only the values the user set', () => {
    const set: Record<string, unknown> = {
      'editor.lintOnSave': false,
      'editor.saveDebounceMs': 250,
      'languages.node.lint': ['npx', 'eslint', '.'],
      'languages.go.binaries': { 'golangci-lint': '/opt/golangci-lint' },
      validatorConcurrency: 2,
    };
    const keys = ['timeouts.test', ...Object.keys(set)];
    assert.deepEqual(
      toServerSettings(keys, (key) => set[key]),
      {
        editor: { lintOnSave: false, saveDebounceMs: 250 },
        languages: {
          node: { lint: ['npx', 'eslint', '.'] },
          go: { binaries: { 'golangci-lint': '/opt/golangci-lint' } },
        },
        validatorConcurrency: 2,
      },
    );
  });

  it('keeps an explicit null (it resets a value a lintel.toml set)', () => {
    assert.deepEqual(
      toServerSettings(['languages.python.test'], () => null),
      { languages: { python: { test: null } } },
    );
  });

  it('is empty when nothing is set', () => {
    assert.deepEqual(
      toServerSettings(serverSettingKeys(sections), () => undefined),
      {},
    );
  });
});

describe('isSetByUser', () => {
  it('is true for a value in any scope, false for defaults only', () => {
    assert.equal(isSetByUser(undefined), false);
    assert.equal(isSetByUser({}), false);
    assert.equal(isSetByUser({ workspaceFolderValue: false }), true);
    assert.equal(isSetByUser({ globalValue: null }), true);
  });
});

describe('initializationOptions', () => {
  it('carries trust next to the settings', () => {
    assert.deepEqual(initializationOptions(false, { editor: { lintOnOpen: false } }), {
      trusted: false,
      settings: { editor: { lintOnOpen: false } },
    });
  });
});
