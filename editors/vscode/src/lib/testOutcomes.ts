/**
 * What a `lintel.runTests` result says of each test a plan ran: failed (the failure whose name is the test's id, or
 * a parametrised case / subtest of it), passed, or errored when the run did not get to say (timed out, not checked).
 */
import { type RunResult, summary, type TestFailure } from './results';
import { type RunPlan, type TestNode, testsUnder } from './testTree';

export type Outcome =
  | { node: TestNode; state: 'passed' }
  | { node: TestNode; state: 'failed'; failures: TestFailure[] }
  | { node: TestNode; state: 'errored'; message: string };

export interface PlanOutcome {
  outcomes: Outcome[];
  /** Failures that name no test of the plan (a fixture's error, a test lintel did not discover). */
  unmatched: TestFailure[];
}

/** Whether a failure named `name` is the test `id`: the same, or one of its cases (`test_p[1-2]`, `TestX/case`). */
export function failureOf(id: string, name: string): boolean {
  if (name === id) {
    return true;
  }
  const next = name.charAt(id.length);
  return name.startsWith(id) && (next === '[' || next === '/');
}

/** Why a run says nothing of its tests, or undefined when it ran them. */
function notRun(result: RunResult): string | undefined {
  if (result.timedOut) {
    return summary(result);
  }
  if (result.status === 'not_checked' || result.status === 'not_configured') {
    return result.reason ?? summary(result);
  }
  if (!result.ok && (result.failures?.length ?? 0) === 0) {
    // A failed run without a failing test: a collection error, a build error — the tests did not run.
    const first = result.issues[0];
    return first ? `${summary(result)}: ${first.message}` : summary(result);
  }
  return undefined;
}

/** Each test of the plan's nodes with its outcome (a node below two requested ones once), and the failures left over. */
export function planOutcome(plan: RunPlan, result: RunResult): PlanOutcome {
  const seen = new Set<string>();
  const tests = plan.nodes.flatMap(testsUnder).filter((node) => !seen.has(node.key) && seen.add(node.key));
  const why = notRun(result);
  if (why !== undefined) {
    return { outcomes: tests.map((node) => ({ node, state: 'errored', message: why })), unmatched: [] };
  }
  const failures = result.failures ?? [];
  const claimed = new Set<TestFailure>();
  const outcomes = tests.map((node): Outcome => {
    const own = failures.filter((failure) => failureOf(node.record.id, failure.name));
    own.forEach((failure) => claimed.add(failure));
    return own.length > 0 ? { node, state: 'failed', failures: own } : { node, state: 'passed' };
  });
  return { outcomes, unmatched: failures.filter((failure) => !claimed.has(failure)) };
}
