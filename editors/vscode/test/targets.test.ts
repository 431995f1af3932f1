import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import declared from './fixtures/declared-detect.json';
import { BUILTIN_LANGUAGES, type LanguageInfo } from '../src/lib/languages';
import type { Detection } from '../src/lib/results';
import {
  commandArgs,
  DOCUMENT_LANGUAGE_IDS,
  languageChoices,
  languageOfFile,
  lintelLanguage,
  projectRootOf,
  runPath,
  SERVER_COMMANDS,
} from '../src/lib/targets';

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

/** A `lintel.detect` of /w/mono: the projects at their roots (relative, `.` for the folder itself). */
function detection(...projects: [language: string, root: string][]): Detection {
  return { root: '/w/mono', projects: projects.map(([language, root]) => ({ language, root, markers: [] })) };
}

describe('projectRootOf', () => {
  const monorepo = detection(['go', 'api'], ['node', 'web'], ['node', 'web/packages/ui'], ['python', 'tools']);

  it('is the nearest root above the file', () => {
    assert.deepEqual(projectRootOf(monorepo, '/w/mono', '/w/mono/web/src/x.ts', 'node'), {
      path: '/w/mono/web',
      languages: ['node'],
    });
    assert.equal(
      projectRootOf(monorepo, '/w/mono', '/w/mono/web/packages/ui/a.ts', 'node')?.path,
      '/w/mono/web/packages/ui',
    );
    assert.equal(projectRootOf(monorepo, '/w/mono', '/w/mono/web/README.md')?.path, '/w/mono/web');
  });

  it("is none when no project holds the file; a root's name is not a prefix of its neighbour's", () => {
    assert.equal(projectRootOf(monorepo, '/w/mono', '/w/mono/docs/notes.md'), undefined);
    assert.equal(projectRootOf(monorepo, '/w/mono', '/w/mono/website/x.ts', 'node'), undefined);
  });

  it("prefers a root of the file's own language, as the server does", () => {
    const goRepo = detection(['go', '.'], ['node', 'web'], ['python', '.']);
    // web/tools/gen.go: the repository's Go module, not web's package.
    assert.deepEqual(projectRootOf(goRepo, '/w/mono', '/w/mono/web/tools/gen.go', 'go'), {
      path: '/w/mono',
      languages: ['go', 'python'],
    });
    assert.equal(projectRootOf(goRepo, '/w/mono', '/w/mono/web/tools/gen.rs', 'rust')?.path, '/w/mono/web');
  });
});

describe('runPath', () => {
  const root = { path: '/w/mono', languages: ['go', 'node'] };
  const main = { file: '/w/mono/main.go', language: 'go', project: root };

  it("is the active file for the server's pick and for the file's own language", () => {
    assert.equal(runPath('/w/mono', undefined, main), '/w/mono/main.go');
    assert.equal(runPath('/w/mono', 'go', main), '/w/mono/main.go');
  });

  it("is the project root for another language there (from the file the server would take the file's)", () => {
    assert.equal(runPath('/w/mono', 'node', main), '/w/mono');
    const nested = { file: '/w/mono/svc/main.go', language: 'go', project: { ...root, path: '/w/mono/svc' } };
    assert.equal(runPath('/w/mono', 'node', nested), '/w/mono/svc');
  });

  it('is the folder without an active file, when no project holds it, or for a language not rooted there', () => {
    assert.equal(runPath('/w/mono', 'go'), '/w/mono');
    assert.equal(runPath('/w/mono', undefined, { file: '/w/mono/docs/notes.md' }), '/w/mono');
    assert.equal(runPath('/w/mono', 'python', main), '/w/mono');
  });
});

describe('lintelLanguage', () => {
  it('maps VS Code language ids onto lintel languages', () => {
    assert.equal(lintelLanguage('typescriptreact'), 'node');
    assert.equal(lintelLanguage('python'), 'python');
    assert.equal(lintelLanguage('markdown'), undefined);
    assert.equal(lintelLanguage(undefined), undefined);
  });

  const shell: LanguageInfo = {
    name: 'shell',
    extensions: ['.sh', '.bash'],
    languageIds: ['shellscript'],
    markers: ['.shellcheckrc'],
  };

  it("falls back to a declared language by the file's suffix, then by its language id", () => {
    assert.equal(lintelLanguage('shellscript', '/w/deploy.sh', [shell]), 'shell');
    assert.equal(lintelLanguage('plaintext', '/w/DEPLOY.BASH', [shell]), 'shell');
    assert.equal(lintelLanguage('shellscript', '/w/bin/deploy', [shell]), 'shell');
    assert.equal(lintelLanguage(undefined, '/w/deploy.sh', [shell]), 'shell');
    assert.equal(lintelLanguage('shellscript', '/w/deploy.sh'), undefined); // nothing declared
    assert.equal(lintelLanguage('plaintext', '/w/notes.txt', [shell]), undefined);
  });

  it('keeps the built-in language of a VS Code language id', () => {
    assert.equal(lintelLanguage('python', '/w/odd.sh', [shell]), 'python');
  });

  it("takes the declared languages from a real server's lintel.detect", () => {
    const detection = declared as Detection;
    const known = detection.languages ?? [];
    assert.deepEqual(
      known.filter((l) => !l.builtin).map((l) => l.name),
      ['shell'],
    );
    assert.equal(lintelLanguage('shellscript', `${detection.root}/tests/run.sh`, known), 'shell');
    assert.equal(lintelLanguage(undefined, `${detection.root}/src/app.py`, known), 'python');
  });
});

describe('languageOfFile', () => {
  it('picks the longest matching suffix, then the first language', () => {
    const text: LanguageInfo = { name: 'text', extensions: ['.txt'], languageIds: ['plaintext'], markers: [] };
    const notes: LanguageInfo = { name: 'notes', extensions: ['.notes.txt'], languageIds: ['notes'], markers: [] };
    const other: LanguageInfo = { ...text, name: 'other' };
    assert.equal(languageOfFile('/w/a.notes.txt', [text, notes]), 'notes');
    assert.equal(languageOfFile('/w/a.txt', [text, notes, other]), 'text');
    assert.equal(languageOfFile('/w/txt', [text]), undefined);
  });
});

describe('the built-in languages (generated from the registry)', () => {
  it("send every built-in language's documents and map each id to its language", () => {
    assert.deepEqual(
      BUILTIN_LANGUAGES.map((l) => l.name),
      ['go', 'rust', 'node', 'python'],
    );
    for (const language of BUILTIN_LANGUAGES) {
      for (const id of language.languageIds) {
        assert.ok(DOCUMENT_LANGUAGE_IDS.includes(id), id);
        assert.equal(lintelLanguage(id), language.name);
      }
    }
    assert.equal(new Set(DOCUMENT_LANGUAGE_IDS).size, DOCUMENT_LANGUAGE_IDS.length);
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
