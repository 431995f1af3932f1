import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandArgs, languageChoices, lintelLanguage, SERVER_COMMANDS } from '../src/lib/targets';

describe('commandArgs', () => {
  it('builds the one object argument, leaving out what is not known', () => {
    assert.deepEqual(commandArgs('go', '/work/app'), { language: 'go', path: '/work/app' });
    assert.deepEqual(commandArgs(undefined, '/work/app'), { path: '/work/app' });
    assert.deepEqual(commandArgs(undefined, undefined), {});
  });

  it("names the server's commands", () => {
    assert.equal(SERVER_COMMANDS.test, 'lintel.runTests');
    assert.equal(SERVER_COMMANDS.lastTestFailures, 'lintel.lastTestFailures');
  });
});

describe('lintelLanguage', () => {
  it('maps VS Code language ids onto lintel languages', () => {
    assert.equal(lintelLanguage('typescriptreact'), 'node');
    assert.equal(lintelLanguage('python'), 'python');
    assert.equal(lintelLanguage('markdown'), undefined);
    assert.equal(lintelLanguage(undefined), undefined);
  });
});

describe('languageChoices', () => {
  it('asks nothing with one or no project type', () => {
    assert.deepEqual(languageChoices([]), []);
    assert.deepEqual(languageChoices(['python']), []);
  });

  it("offers each language, the active file's first, then all of them", () => {
    const choices = languageChoices(['go', 'node', 'python'], 'python');
    assert.deepEqual(
      choices.map((c) => [c.label, c.languages]),
      [
        ['python', ['python']],
        ['go', ['go']],
        ['node', ['node']],
        ['All', ['python', 'go', 'node']],
      ],
    );
    assert.equal(choices[0]?.description, 'the active file');
  });

  it('keeps the detected order when the active file is of another language', () => {
    assert.deepEqual(
      languageChoices(['go', 'node'], 'rust').map((c) => c.label),
      ['go', 'node', 'All'],
    );
  });
});
