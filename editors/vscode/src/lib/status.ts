/** The status bar item's text: the detected languages, or what is running. */

export interface StatusState {
  readonly server: 'starting' | 'running' | 'stopped';
  readonly trusted: boolean;
  /** undefined until `lintel.detect` answered. */
  readonly languages?: readonly string[];
  /** Labels of the commands running now, like `python test`. */
  readonly running: readonly string[];
}

export interface StatusView {
  readonly text: string;
  readonly tooltip: string;
}

export function statusView(state: StatusState): StatusView {
  if (state.server === 'stopped') {
    return { text: '$(error) lintel', tooltip: 'The lintel server is not running — click for its output' };
  }
  if (state.running.length > 0) {
    return { text: `$(sync~spin) lintel: ${state.running.join(', ')}`, tooltip: `Running ${state.running.join(', ')}` };
  }
  if (state.server === 'starting' || state.languages === undefined) {
    return { text: '$(sync~spin) lintel', tooltip: 'Starting the lintel server' };
  }
  const languages = state.languages.length > 0 ? state.languages.join(', ') : 'no project';
  const icon = state.trusted ? '$(check)' : '$(shield)';
  const trust = state.trusted ? '' : ' — untrusted workspace: no tools run';
  return { text: `${icon} lintel: ${languages}`, tooltip: `Detected: ${languages}${trust}. Click for the output.` };
}
