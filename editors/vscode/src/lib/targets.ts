/** Which server command to run, for which language: the arguments of lintel's `workspace/executeCommand`. */
import * as path from 'node:path';
import { BUILTIN_LANGUAGES, type LanguageInfo } from './languages';
import type { Detection } from './results';

export type Check = 'test' | 'typecheck' | 'lint';

export const SERVER_COMMANDS = {
  test: 'lintel.runTests',
  typecheck: 'lintel.typecheck',
  lint: 'lintel.lint',
  lastTestFailures: 'lintel.lastTestFailures',
  detect: 'lintel.detect',
} as const;

/** The one argument every lintel command takes (CONTRACT §6). */
export interface CommandArgs {
  language?: string;
  path?: string;
  timeout?: number;
}

/** `target` is the active file or a folder: the server acts on the nearest project at or above it. */
export function commandArgs(language: string | undefined, target: string | undefined): CommandArgs {
  const args: CommandArgs = {};
  if (language !== undefined) {
    args.language = language;
  }
  if (target !== undefined) {
    args.path = target;
  }
  return args;
}

/** A folder that holds projects: its path and the languages rooted there. */
export interface ProjectRoot {
  readonly path: string;
  readonly languages: readonly string[];
}

/**
 * The project root the server takes for `file` (docs/architecture.md, Detection: the nearest root above it with a
 * project of the file's own language, else the nearest with any), read off the `lintel.detect` of the folder holding
 * it; undefined when no project holds the file.
 */
export function projectRootOf(
  detection: Detection,
  folderPath: string,
  file: string,
  fileLanguage?: string,
): ProjectRoot | undefined {
  const relative = path.relative(folderPath, file).split(path.sep).join('/');
  const holding = detection.projects.filter((p) => p.root === '.' || relative.startsWith(`${p.root}/`));
  const own = holding.filter((p) => p.language === fileLanguage);
  const depth = (root: string): number => (root === '.' ? 0 : root.split('/').length);
  const [nearest] = (own.length > 0 ? own : holding).map((p) => p.root).sort((a, b) => depth(b) - depth(a));
  if (nearest === undefined) {
    return undefined;
  }
  const languages = holding.filter((p) => p.root === nearest).map((p) => p.language);
  return { path: path.join(folderPath, nearest), languages: [...new Set(languages)] };
}

/** The active editor's file, its lintel language and the project root that holds it. */
export interface ActiveFile {
  readonly file: string;
  readonly language?: string;
  readonly project?: ProjectRoot;
}

/**
 * The `path` of a run in `language`: the active file where the server takes that language's project from it (the
 * file's own language, or the server's pick); another language rooted beside it, that root; else the folder.
 */
export function runPath(folderPath: string, language: string | undefined, active?: ActiveFile): string {
  const project = active?.project;
  if (active === undefined || project === undefined) {
    return folderPath;
  }
  if (language === undefined || language === active.language) {
    return active.file;
  }
  return project.languages.includes(language) ? project.path : folderPath;
}

const LANGUAGE_OF_DOCUMENT: ReadonlyMap<string, string> = new Map(
  BUILTIN_LANGUAGES.flatMap((language) => language.languageIds.map((id) => [id, language.name] as const)),
);

/** The VS Code language ids of lintel's built-in languages: the documents the client sends the server. */
export const DOCUMENT_LANGUAGE_IDS: readonly string[] = [...LANGUAGE_OF_DOCUMENT.keys()];

/**
 * lintel's language for a document: a built-in one by its VS Code language id (`typescriptreact` → `node`), else
 * the language among `known` (the workspace's, from `lintel.detect`, with those declared in lintel.toml) whose
 * file suffix the file name ends with — the longest suffix wins, as in the server — else whose language ids
 * include the document's.
 */
export function lintelLanguage(
  languageId: string | undefined,
  fileName?: string,
  known: readonly LanguageInfo[] = [],
): string | undefined {
  const builtin = languageId === undefined ? undefined : LANGUAGE_OF_DOCUMENT.get(languageId);
  if (builtin !== undefined) {
    return builtin;
  }
  const bySuffix = fileName === undefined ? undefined : languageOfFile(fileName, known);
  if (bySuffix !== undefined || languageId === undefined) {
    return bySuffix;
  }
  return known.find((language) => language.languageIds.includes(languageId))?.name;
}

/** The language among `languages` a file belongs to by its suffix (case-insensitive; longest first, then order). */
export function languageOfFile(fileName: string, languages: readonly LanguageInfo[]): string | undefined {
  const name = fileName.toLowerCase();
  let best: { length: number; language: string } | undefined;
  for (const language of languages) {
    for (const suffix of language.extensions) {
      if (name.endsWith(suffix.toLowerCase()) && (best === undefined || suffix.length > best.length)) {
        best = { length: suffix.length, language: language.name };
      }
    }
  }
  return best?.language;
}

export interface LanguageChoice {
  readonly label: string;
  readonly description?: string;
  /** The runs to make; `undefined` leaves the choice to the server. */
  readonly languages: readonly (string | undefined)[];
}

/**
 * What to offer when a command needs a language. Nothing to ask (an empty list) unless several project types are
 * detected; then the active file's language comes first and "all of them" last.
 */
export function languageChoices(detected: readonly string[], preferred?: string): LanguageChoice[] {
  const languages = [...new Set(detected)];
  if (languages.length < 2) {
    return [];
  }
  if (preferred !== undefined && languages.includes(preferred)) {
    languages.splice(languages.indexOf(preferred), 1);
    languages.unshift(preferred);
  }
  const choices: LanguageChoice[] = languages.map((language) => ({
    label: language,
    description: language === preferred ? 'the active file' : undefined,
    languages: [language],
  }));
  choices.push({ label: 'All', description: languages.join(', '), languages });
  return choices;
}

/** The runs when there is nothing to ask: the server picks the single project (or says why it cannot). */
export const SERVER_DECIDES: LanguageChoice = { label: 'detected', languages: [undefined] };
