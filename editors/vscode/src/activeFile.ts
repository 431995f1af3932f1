/**
 * The active editor's file, where lintel's commands act when a project holds it: the server takes the project above
 * it (a file of `web/` runs web's tests in a monorepo).
 */
import * as vscode from 'vscode';
import type { Detection, KnownLanguage } from './lib/results';
import { type ActiveFile, lintelLanguage, projectRootOf } from './lib/targets';

/**
 * The active editor's file when it is on disk inside `folder` (an untitled or virtual document has no path there),
 * with its language and project root as the folder's `lintel.detect` shows them.
 */
export function activeFileIn(
  folder: vscode.WorkspaceFolder,
  detection: Detection | undefined,
  known: readonly KnownLanguage[],
): ActiveFile | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (document?.uri.scheme !== 'file') {
    return undefined;
  }
  if (vscode.workspace.getWorkspaceFolder(document.uri)?.uri.toString() !== folder.uri.toString()) {
    return undefined;
  }
  const file = document.uri.fsPath;
  const language = lintelLanguage(document.languageId, file, known);
  const project = detection && projectRootOf(detection, folder.uri.fsPath, file, language);
  return { file, language, project };
}
