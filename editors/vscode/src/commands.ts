/** The palette commands: pick a folder and language, run lintel's command, report the RunResult. */
import * as vscode from 'vscode';
import type { Lintel } from './client';
import { failureItems, type FailureItem, renderResult, type RunResult, summary } from './lib/results';
import {
  type Check,
  commandArgs,
  type LanguageChoice,
  languageChoices,
  lintelLanguage,
  SERVER_COMMANDS,
  SERVER_DECIDES,
} from './lib/targets';

export const COMMANDS = {
  runTests: 'lintel.vscode.runTests',
  typecheck: 'lintel.vscode.typecheck',
  lint: 'lintel.vscode.lint',
  showTestFailures: 'lintel.vscode.showTestFailures',
  restart: 'lintel.vscode.restart',
  showOutput: 'lintel.vscode.showOutput',
} as const;

const QUESTION: Readonly<Record<Check, string>> = {
  test: 'run the tests of which language?',
  typecheck: 'typecheck which language?',
  lint: 'lint which language?',
};

export function registerCommands(lintel: Lintel, output: vscode.LogOutputChannel): vscode.Disposable[] {
  const commands = new Commands(lintel, output);
  return [
    vscode.commands.registerCommand(COMMANDS.runTests, () => commands.runCheck('test')),
    vscode.commands.registerCommand(COMMANDS.typecheck, () => commands.runCheck('typecheck')),
    vscode.commands.registerCommand(COMMANDS.lint, () => commands.runCheck('lint')),
    vscode.commands.registerCommand(COMMANDS.showTestFailures, () => commands.showTestFailures()),
    vscode.commands.registerCommand(COMMANDS.restart, () => lintel.restart()),
    vscode.commands.registerCommand(COMMANDS.showOutput, () => output.show()),
  ];
}

class Commands {
  constructor(
    private readonly lintel: Lintel,
    private readonly output: vscode.LogOutputChannel,
  ) {}

  async runCheck(check: Check): Promise<void> {
    const target = await this.pickTarget(`Lintel: ${QUESTION[check]}`);
    if (target === undefined) {
      return;
    }
    const results: RunResult[] = [];
    for (const language of target.choice.languages) {
      const label = `${language ?? 'workspace'} ${check}`;
      const args = commandArgs(language, target.folder.uri.fsPath);
      const outcome = await this.lintel.run<RunResult>(SERVER_COMMANDS[check], args, label);
      if (!outcome.ok) {
        if (outcome.cancelled) {
          break;
        }
        continue; // the error was shown; the other languages still run
      }
      this.output.info(renderResult(outcome.value));
      results.push(outcome.value);
    }
    if (results.length > 0) {
      await this.report(results, target.folder);
    }
  }

  async showTestFailures(): Promise<void> {
    const target = await this.pickTarget('Lintel: failures of which language’s tests?');
    if (target === undefined) {
      return;
    }
    const results: RunResult[] = [];
    for (const language of target.choice.languages) {
      const args = commandArgs(language, target.folder.uri.fsPath);
      const label = `${language ?? 'workspace'} test failures`;
      const outcome = await this.lintel.run<RunResult | null>(SERVER_COMMANDS.lastTestFailures, args, label);
      if (outcome.ok && outcome.value !== null) {
        results.push(outcome.value);
      } else if (!outcome.ok) {
        return;
      }
    }
    await this.pickFailure(results, target.folder);
  }

  private async report(results: RunResult[], folder: vscode.WorkspaceFolder): Promise<void> {
    const text = `Lintel: ${results.map(summary).join('; ')}`;
    if (results.every((r) => r.ok)) {
      void vscode.window.showInformationMessage(text);
      return;
    }
    const failed = results.some((r) => (r.failures?.length ?? 0) > 0);
    const actions = [...(failed ? ['Show Failures'] : []), 'Show Problems', 'Show Output'];
    const pick = await vscode.window.showWarningMessage(text, ...actions);
    if (pick === 'Show Failures') {
      await this.pickFailure(results, folder);
    } else if (pick === 'Show Problems') {
      await vscode.commands.executeCommand('workbench.actions.view.problems');
    } else if (pick === 'Show Output') {
      this.output.show(true);
    }
  }

  private async pickFailure(results: RunResult[], folder: vscode.WorkspaceFolder): Promise<void> {
    if (results.length === 0) {
      void vscode.window.showInformationMessage('Lintel: no test run yet — run "Lintel: Run Tests" first.');
      return;
    }
    const items = results.flatMap((result) => failureItems(result, folder.uri.fsPath));
    if (items.length === 0) {
      void vscode.window.showInformationMessage(`Lintel: ${results.map(summary).join('; ')}`);
      return;
    }
    const picked = await vscode.window.showQuickPick<FailureItem & vscode.QuickPickItem>(items, {
      title: 'Lintel: test failures',
      matchOnDescription: true,
      matchOnDetail: true,
    });
    if (picked?.file === undefined) {
      return;
    }
    const line = picked.line ?? 0;
    await vscode.window.showTextDocument(vscode.Uri.file(picked.file), {
      selection: new vscode.Range(line, 0, line, 0),
    });
  }

  /** The folder (the active file's, the only one, or asked) and, in a polyglot folder, the language(s). */
  private async pickTarget(
    question: string,
  ): Promise<{ folder: vscode.WorkspaceFolder; choice: LanguageChoice } | undefined> {
    const editor = vscode.window.activeTextEditor;
    const folders = vscode.workspace.workspaceFolders ?? [];
    const folder =
      (editor && vscode.workspace.getWorkspaceFolder(editor.document.uri)) ??
      (folders.length === 1 ? folders[0] : await vscode.window.showWorkspaceFolderPick());
    if (folder === undefined) {
      if (folders.length === 0) {
        void vscode.window.showInformationMessage('Lintel: open a folder first.');
      }
      return undefined;
    }
    await this.lintel.detect(); // cheap (markers only), and a project added since is offered
    const document = editor?.document;
    const active = lintelLanguage(document?.languageId, document?.uri.fsPath, this.lintel.knownLanguagesIn(folder));
    const choices = languageChoices(this.lintel.languagesOf(folder), active);
    if (choices.length === 0) {
      return { folder, choice: SERVER_DECIDES };
    }
    const choice = await vscode.window.showQuickPick(choices, { title: question });
    return choice && { folder, choice };
  }
}
