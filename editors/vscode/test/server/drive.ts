/**
 * Drives a real `lintel serve` with the messages the extension builds, using the extension's own modules:
 * initializationOptions, the answer to workspace/configuration, command arguments, progress and result rendering.
 * Prints what it saw as JSON for tests/integration/test_vscode_extension.py. Not part of `npm test` (needs lintel).
 * With LINTEL_DRIVE_ACTIVE_FILE as the active editor's file, the commands act where the extension's would: at that
 * file, for the language it would pick.
 *
 *   node out/drive.js <workspace> <trusted|untrusted> <user settings as JSON> <server command...>
 */
import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';
import packageJson from '../../package.json';
import {
  type Detection,
  detectedLanguages,
  failureItems,
  renderResult,
  type RunResult,
  summary,
} from '../../src/lib/results';
import { initializationOptions, serverSettingKeys, toServerSettings } from '../../src/lib/settings';
import {
  type ActiveFile,
  commandArgs,
  languageChoices,
  lintelLanguage,
  projectRootOf,
  runPath,
  SERVER_COMMANDS,
  SERVER_DECIDES,
} from '../../src/lib/targets';

interface ConfigurationParams {
  items: { section?: string; scopeUri?: string }[];
}

async function main(): Promise<void> {
  const [workspace, trust, userJson, command, ...args] = process.argv.slice(2);
  if (workspace === undefined || userJson === undefined || command === undefined) {
    throw new Error('usage: drive.js <workspace> <trusted|untrusted> <user settings as JSON> <server command...>');
  }
  // What the user set, by setting key without `lintel.`; every other setting keeps its default and is not sent.
  const userSettings = JSON.parse(userJson) as Record<string, unknown>;
  const settings = toServerSettings(serverSettingKeys(packageJson.contributes.configuration), (k) => userSettings[k]);

  const child = spawn(command, args, { cwd: workspace, stdio: ['pipe', 'pipe', 'inherit'] });
  const connection = createMessageConnection(
    new StreamMessageReader(child.stdout),
    new StreamMessageWriter(child.stdin),
  );
  const seen = {
    configurationSections: [] as (string | undefined)[],
    progress: [] as string[],
    messages: [] as string[],
  };
  connection.onRequest('workspace/configuration', (params: ConfigurationParams) =>
    params.items.map((item) => {
      seen.configurationSections.push(item.section);
      return item.section === 'lintel' ? settings : null;
    }),
  );
  connection.onNotification('$/progress', (params: { value: { kind: string; title?: string; message?: string } }) =>
    seen.progress.push(params.value.kind),
  );
  connection.onNotification('window/showMessage', (params: { message: string }) => seen.messages.push(params.message));
  connection.onNotification(() => undefined); // diagnostics, log messages
  connection.onRequest(() => null); // registrations, progress creation
  connection.listen();

  const rootUri = pathToFileURL(workspace).href;
  await connection.sendRequest('initialize', {
    processId: process.pid,
    rootUri,
    workspaceFolders: [{ uri: rootUri, name: 'workspace' }],
    capabilities: { workspace: { configuration: true, workspaceFolders: true }, window: { workDoneProgress: true } },
    initializationOptions: initializationOptions(trust === 'trusted', settings),
  });
  await connection.sendNotification('initialized', {});

  const run = async (name: string, language?: string, path = workspace, workDoneToken?: string): Promise<unknown> => {
    try {
      const params = { command: name, arguments: [commandArgs(language, path)], workDoneToken };
      return await connection.sendRequest('workspace/executeCommand', params);
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  };
  const detection = (await run(SERVER_COMMANDS.detect)) as Detection;
  // As the palette command picks: with an active file, among the languages of the project root holding it, its own
  // first; the run acts on the file. Asked, the first choice; nothing to ask, the server decides.
  const activeFile = process.env.LINTEL_DRIVE_ACTIVE_FILE;
  let file: ActiveFile | undefined;
  if (activeFile !== undefined) {
    const language = lintelLanguage(undefined, activeFile, detection.languages);
    file = { file: activeFile, language, project: projectRootOf(detection, workspace, activeFile, language) };
  }
  const languages = file?.project?.languages ?? detectedLanguages([detection]);
  const [choice = SERVER_DECIDES] = languageChoices(languages, file?.language);
  const language = choice.languages[0];
  const path = runPath(workspace, language, file);
  const tests = await run(SERVER_COMMANDS.test, language, path, 'lintel-drive-1');
  const last = await run(SERVER_COMMANDS.lastTestFailures, language, path);
  const report = (result: unknown): unknown =>
    result !== null && typeof result === 'object' && 'check' in result
      ? {
          summary: summary(result as RunResult),
          failures: failureItems(result as RunResult, workspace),
          rendered: renderResult(result as RunResult),
        }
      : result;

  await connection.sendRequest('shutdown');
  await connection.sendNotification('exit');
  connection.dispose();
  const output = {
    settings,
    detection,
    languages,
    active: file?.language,
    path,
    tests: report(tests),
    last: report(last),
    ...seen,
  };
  console.log(JSON.stringify(output, null, 2));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
