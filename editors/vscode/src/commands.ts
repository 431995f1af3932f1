/** The palette commands: pick a folder and language, run lintel's command, report the RunResult. */
import * as vscode from 'vscode';
import { activeFileIn } from './activeFile';
import type { Lintel } from './client';
import { failureItems, type FailureItem, renderResult, type RunResult, summary } from './lib/results';
import {
  type Check,
  commandArgs,
  type LanguageChoice,
  languageChoices,
  lintelLanguage,
  runPath,
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

interface Target {
  folder: vscode.WorkspaceFolder;
  choice: LanguageChoice;
  /** The `path` of the run in a language. */
  pathFor: (language: string | undefined) => string;
}

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
      const args = commandArgs(language, target.pathFor(language));
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
      const args = commandArgs(language, target.pathFor(language));
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

  /**
   * The folder (the active file's, the only one, or asked), the language(s) — asked where the active file's project
   * root, else the folder, holds several — and the path each run acts on: the active file when a project holds it.
   */
  private async pickTarget(question: string): Promise<Target | undefined> {
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
    await this.lintel.detect(); // a project added since is offered
    const known = this.lintel.knownLanguagesIn(folder);
    const file = activeFileIn(folder, this.lintel.detectionOf(folder), known);
    const pathFor = (language: string | undefined): string => runPath(folder.uri.fsPath, language, file);
    const document = editor?.document;
    const preferred = lintelLanguage(document?.languageId, document?.uri.fsPath, known);
    const choices = languageChoices(file?.project?.languages ?? this.lintel.languagesOf(folder), preferred);
    if (choices.length === 0) {
      return { folder, choice: SERVER_DECIDES, pathFor };
    }
    const choice = await vscode.window.showQuickPick(choices, { title: question });
    return choice && { folder, choice, pathFor };
  }
}
