import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RestartPolicy } from '../src/lib/restartPolicy';

describe('RestartPolicy', () => {
  it('never restarts a server that did not get to run', () => {
    const policy = new RestartPolicy();
    for (let close = 0; close < 3; close += 1) {
      assert.deepEqual(policy.closed(), {
        restart: false,
        reason: 'the server stopped before it answered initialize; it is not restarted',
      });
    }
  });

  it('restarts a crashed server up to 4 times in 3 minutes, then leaves it stopped', () => {
    let now = 0;
    const policy = new RestartPolicy(4, 180_000, () => now);
    policy.running();
    const decisions = [1, 2, 3, 4, 5].map(() => {
      now += 1000;
      return policy.closed().restart;
    });
    assert.deepEqual(decisions, [true, true, true, true, false]);
  });

  it('forgets crashes older than the window', () => {
    let now = 0;
    const policy = new RestartPolicy(1, 60_000, () => now);
    policy.running();
    assert.equal(policy.closed().restart, true);
    now += 61_000;
    assert.equal(policy.closed().restart, true);
    now += 1000;
    assert.deepEqual(policy.closed(), { restart: false, reason: 'the server stopped 2 times in 1 minutes' });
  });
});
