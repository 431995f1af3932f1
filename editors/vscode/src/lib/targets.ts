/** Which server command to run, for which language: the arguments of lintel's `workspace/executeCommand`. */
import { BUILTIN_LANGUAGES, type LanguageInfo } from './languages';

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

export function commandArgs(language: string | undefined, folderPath: string | undefined): CommandArgs {
  const args: CommandArgs = {};
  if (language !== undefined) {
    args.language = language;
  }
  if (folderPath !== undefined) {
    args.path = folderPath;
  }
  return args;
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
