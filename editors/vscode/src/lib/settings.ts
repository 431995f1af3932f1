/**
 * The `lintel` settings section in the server's camelCase shape. Only values the user set are sent: a default
 * sent from VS Code would outrank the workspace's own `lintel.toml` (client settings have the highest precedence).
 */

/** The hand-written section of package.json with the extension's own settings (never sent to the server). */
export const CLIENT_SECTION = 'lintel.client';
export const PREFIX = 'lintel.';

export interface ConfigurationSection {
  readonly id?: string;
  readonly properties?: Readonly<Record<string, unknown>>;
}

/** The setting keys (without `lintel.`) that belong to the server's model, from package.json's sections. */
export function serverSettingKeys(sections: readonly ConfigurationSection[]): string[] {
  return sections
    .filter((section) => section.id !== CLIENT_SECTION)
    .flatMap((section) => Object.keys(section.properties ?? {}))
    .filter((key) => key.startsWith(PREFIX))
    .map((key) => key.slice(PREFIX.length));
}

/** The shape of `WorkspaceConfiguration.inspect()`'s answer that matters here. */
export interface Inspection {
  readonly globalValue?: unknown;
  readonly workspaceValue?: unknown;
  readonly workspaceFolderValue?: unknown;
  readonly globalLanguageValue?: unknown;
  readonly workspaceLanguageValue?: unknown;
  readonly workspaceFolderLanguageValue?: unknown;
}

export function isSetByUser(inspection: Inspection | undefined): boolean {
  if (inspection === undefined) {
    return false;
  }
  return [
    inspection.globalValue,
    inspection.workspaceValue,
    inspection.workspaceFolderValue,
    inspection.globalLanguageValue,
    inspection.workspaceLanguageValue,
    inspection.workspaceFolderLanguageValue,
  ].some((value) => value !== undefined);
}

export type Settings = Record<string, unknown>;

/**
 * Nests the dotted keys the user set (`editor.lintOnSave` → `{editor: {lintOnSave: …}}`); `value` answers
 * undefined for a key the user did not set.
 */
export function toServerSettings(keys: readonly string[], value: (key: string) => unknown): Settings {
  const out: Settings = {};
  for (const key of keys) {
    const setting = value(key);
    if (setting === undefined) {
      continue;
    }
    const parts = key.split('.');
    const leaf = parts.pop() as string;
    let node = out;
    for (const part of parts) {
      const child = node[part];
      node = (node[part] = typeof child === 'object' && child !== null ? child : {}) as Settings;
    }
    node[leaf] = setting;
  }
  return out;
}

/** What `initialize` carries: trust (an untrusted workspace runs no process) and the user's settings. */
export function initializationOptions(trusted: boolean, settings: Settings): { trusted: boolean; settings: Settings } {
  return { trusted, settings };
}
