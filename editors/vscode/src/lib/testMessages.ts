/**
 * Expected and actual values in a test failure's message, where the runner's wording makes them unambiguous, for the
 * Test Explorer's diff: pytest's `assert 1 == 2`, jest/vitest's `Expected:`/`Received:`, `expected:`/`actual:`
 * (node:test, testify), and Rust's `left:`/`right:` of assert_eq!. Anything else has no diff.
 */

export interface Comparison {
  expected: string;
  actual: string;
}

/** One line `<label>: value` (the first such line) of a message, trimmed. */
function labelled(lines: readonly string[], label: RegExp): string | undefined {
  for (const line of lines) {
    const match = label.exec(line);
    if (match?.[1] !== undefined) {
      return match[1].trim();
    }
  }
  return undefined;
}

/** pytest's rewritten assertion (`assert 0.75 == 2.5`, maybe after `E   `): the test's convention is actual first. */
function pytestCompare(lines: readonly string[]): Comparison | undefined {
  const asserts = lines
    .map((line) => /^(?:E\s+)?assert (.+)$/.exec(line.trim())?.[1])
    .filter((found): found is string => found !== undefined);
  if (asserts.length !== 1) {
    return undefined;
  }
  const sides = (asserts[0] ?? '').split(' == ');
  if (sides.length !== 2) {
    return undefined; // not `==`, or `==` inside a side: no telling which is which
  }
  const [actual = '', expected = ''] = sides.map((side) => side.trim());
  return actual && expected ? { expected, actual } : undefined;
}

function pair(lines: readonly string[], expected: RegExp, actual: RegExp): Comparison | undefined {
  const e = labelled(lines, expected);
  const a = labelled(lines, actual);
  return e !== undefined && a !== undefined ? { expected: e, actual: a } : undefined;
}

/** The expected and actual values a failure's message states, or undefined when it does not state them plainly. */
export function comparison(message: string): Comparison | undefined {
  const lines = message.split(/\r?\n/);
  return (
    pair(lines, /^\s*Expected:\s(.*)$/, /^\s*Received:\s(.*)$/) ??
    pair(lines, /^\s*expected\s*:\s(.*)$/, /^\s*actual\s*:\s(.*)$/) ??
    // assert_eq!(actual, expected): Rust prints `left` (the first) and `right`.
    pair(lines, /^\s*right:\s(.*)$/, /^\s*left:\s(.*)$/) ??
    pytestCompare(lines)
  );
}
