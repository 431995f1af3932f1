/** The status bar item: detected languages, a spinner while a command runs; a click shows the output. */
import * as vscode from 'vscode';
import { type StatusState, statusView } from './lib/status';

export class StatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('lintel.status', vscode.StatusBarAlignment.Left, 10);
  private state: StatusState = { server: 'starting', trusted: vscode.workspace.isTrusted, running: [] };

  constructor(clickCommand: string) {
    this.item.name = 'Lintel';
    this.item.command = clickCommand;
    this.render();
    this.item.show();
  }

  update(change: Partial<StatusState>): void {
    this.state = { ...this.state, ...change };
    this.render();
  }

  /** Shows `label` as running until the returned function is called. */
  running(label: string): () => void {
    this.update({ running: [...this.state.running, label] });
    return () => {
      const running = [...this.state.running];
      running.splice(running.indexOf(label), 1);
      this.update({ running });
    };
  }

  private render(): void {
    const view = statusView(this.state);
    this.item.text = view.text;
    this.item.tooltip = view.tooltip;
  }

  dispose(): void {
    this.item.dispose();
  }
}
