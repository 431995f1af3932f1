/** The server's RunResult (CONTRACT §6) rendered as text, a one-line summary and quick-pick items. */
import * as path from 'node:path';
import type { LanguageInfo } from './languages';

export type Severity = 'error' | 'warning' | 'info' | 'hint';

export interface Issue {
  kind: string;
  signature: string;
  fingerprint?: string;
  message: string;
  severity: Severity;
  source: string;
  file?: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
  rule?: string;
  hint?: string;
}

export interface TestFailure {
  name: string;
  message: string;
  file?: string;
  line?: number;
  output?: string;
}

export interface RunResult {
  ok: boolean;
  language: string;
  check: string;
  argv: string[];
  cwd: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  truncated?: boolean;
  output: string;
  issues: Issue[];
  failures?: TestFailure[];
  // passed: the tool said all is well but lintel could not read its output (never shown as clean);
  // not_configured: the project does not use the check's tool (no TypeScript, no prettier), so nothing ran.
  status?: 'clean' | 'passed' | 'findings' | 'not_checked' | 'not_configured';
  reason?: string | null;
}

/** A language the server knows in a workspace: built-in, or declared in its lintel.toml. */
export interface KnownLanguage extends LanguageInfo {
  readonly builtin: boolean;
  readonly checks: readonly string[];
  readonly navigation: boolean;
}

/** What `lintel.detect` answers: the project types found under a folder, and the languages lintel knows there. */
export interface Detection {
  root: string;
  projects: { language: string; root: string; markers: string[] }[];
  // Absent from servers older than user-declared languages.
  languages?: KnownLanguage[];
}

export function detectedLanguages(detections: readonly (Detection | null | undefined)[]): string[] {
  const languages = detections.flatMap((d) => d?.projects.map((p) => p.language) ?? []);
  return [...new Set(languages)];
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? '' : 's'}`;
}

/** One line: `python test: 2 failed (3.1s)`. */
export function summary(result: RunResult): string {
  const head = `${result.language} ${result.check}`;
  const time = ` (${seconds(result.durationMs)})`;
  if (result.timedOut) {
    return `${head}: timed out${time}`;
  }
  if (result.status === 'not_checked') {
    return `${head}: not checked${result.reason ? ` — ${result.reason}` : ''}${time}`;
  }
  if (result.status === 'not_configured') {
    return `${head}: not configured${result.reason ? ` — ${result.reason}` : ''}`;
  }
  const failures = result.failures?.length ?? 0;
  if (failures > 0) {
    return `${head}: ${failures} failed${time}`;
  }
  if (result.issues.length > 0) {
    const errors = result.issues.filter((i) => i.severity === 'error').length;
    const detail = errors > 0 && errors < result.issues.length ? `, ${plural(errors, 'error')}` : '';
    return `${head}: ${plural(result.issues.length, 'issue')}${detail}${time}`;
  }
  if (result.status === 'passed') {
    return `${head}: passed (output not parsed)${time}`;
  }
  const word = result.check === 'test' ? 'passed' : result.ok ? 'clean' : 'failed';
  return `${head}: ${word}${time}`;
}

function location(file: string | undefined, line?: number, column?: number): string {
  if (file === undefined) {
    return '';
  }
  return [file, line, line !== undefined ? column : undefined].filter((p) => p !== undefined).join(':');
}

/** The full report for the output channel: summary, command line, issues, failures, then the tool's output. */
export function renderResult(result: RunResult): string {
  const lines = [
    summary(result),
    `  $ ${result.argv.join(' ')}`,
    `  in ${result.cwd}, exit ${result.exitCode ?? 'none'}${result.truncated ? ', output truncated' : ''}`,
  ];
  for (const issue of result.issues) {
    const where = location(issue.file, issue.line, issue.column);
    const rule = issue.rule ? `[${issue.rule}] ` : '';
    lines.push(`  ${where ? `${where}: ` : ''}${issue.severity} ${issue.source}: ${rule}${issue.message}`);
  }
  for (const failure of result.failures ?? []) {
    const where = location(failure.file, failure.line);
    lines.push(`  FAILED ${failure.name}${where ? ` (${where})` : ''}: ${firstLine(failure.message)}`);
  }
  if (result.output.trim()) {
    lines.push('', result.output.trimEnd());
  }
  return lines.join('\n');
}

function firstLine(text: string): string {
  return text.trim().split('\n', 1)[0] ?? '';
}

/** A path the server reported (relative to the workspace folder, or absolute) as an absolute path. */
export function resolveFile(file: string, workspaceRoot: string): string {
  return path.isAbsolute(file) ? file : path.join(workspaceRoot, file);
}

export interface FailureItem {
  label: string;
  description?: string;
  detail: string;
  /** Absolute path, when the failure names a file. */
  file?: string;
  /** 0-based, for the editor. */
  line?: number;
}

export function failureItems(result: RunResult, workspaceRoot: string): FailureItem[] {
  return (result.failures ?? []).map((failure) => ({
    label: failure.name,
    description: location(failure.file, failure.line) || undefined,
    detail: firstLine(failure.message) || '(no message)',
    file: failure.file === undefined ? undefined : resolveFile(failure.file, workspaceRoot),
    line: failure.line === undefined ? undefined : Math.max(0, failure.line - 1),
  }));
}
