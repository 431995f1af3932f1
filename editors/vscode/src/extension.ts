/** Entry point: wires the output channel, status bar, server client and commands. */
import * as vscode from 'vscode';
import { Lintel } from './client';
import { COMMANDS, registerCommands } from './commands';
import { StatusBar } from './statusBar';
import { LintelTests } from './testing';

let lintel: Lintel | undefined;

/**
 * Everything is registered before the first `await`: a `lintel.server.*` change that arrives while the first start
 * is still looking (User settings reaching a fresh code-server late) starts the search again with the new value.
 */
export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const output = vscode.window.createOutputChannel('Lintel', { log: true });
  const status = new StatusBar(COMMANDS.showOutput);
  lintel = new Lintel(context, output, status);
  const client = lintel;
  context.subscriptions.push(
    output,
    status,
    client,
    ...registerCommands(client, output),
    new LintelTests(client, output),
    // Untrusted, the server runs no process; once trusted it must start over to run them.
    vscode.workspace.onDidGrantWorkspaceTrust(() => client.restart('the workspace is trusted now')),
    // Values are compared, whatever keys the event names (launcher.ts: code-server's first launch).
    vscode.workspace.onDidChangeConfiguration((event) => client.configurationChanged(event)),
    vscode.workspace.onDidChangeWorkspaceFolders(() => client.detect()),
    // The status shows the active file's project, from the last detection: no request.
    vscode.window.onDidChangeActiveTextEditor(() => client.showDetected()),
  );
  await client.start();
}

export async function deactivate(): Promise<void> {
  await lintel?.stop();
}
