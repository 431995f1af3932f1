/** Which server command to run, for which language: the arguments of lintel's `workspace/executeCommand`. */

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

const LANGUAGE_OF_DOCUMENT: Readonly<Record<string, string>> = {
  go: 'go',
  rust: 'rust',
  python: 'python',
  javascript: 'node',
  javascriptreact: 'node',
  typescript: 'node',
  typescriptreact: 'node',
};

/** lintel's language for a VS Code language id (`typescriptreact` → `node`). */
export function lintelLanguage(languageId: string | undefined): string | undefined {
  return languageId === undefined ? undefined : LANGUAGE_OF_DOCUMENT[languageId];
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
