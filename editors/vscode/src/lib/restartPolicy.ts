/**
 * When vscode-languageclient may start the server again after its connection closed. A server that never got to
 * run is not restarted at all (its command was probed, so it failing is not going to change by retrying: that loop
 * logged "Client is not running and can't be stopped" again and again); one that ran and crashed is
 * restarted a few times, as vscode-languageclient's own default does, then left stopped.
 */

export type CloseDecision = { restart: true } | { restart: false; reason: string };

export class RestartPolicy {
  private ran = false;
  private readonly closes: number[] = [];

  constructor(
    private readonly maxRestarts = 4,
    private readonly windowMs = 3 * 60 * 1000,
    private readonly now: () => number = Date.now,
  ) {}

  /** The server answered initialize: from now on a close is a crash. */
  running(): void {
    this.ran = true;
  }

  closed(): CloseDecision {
    if (!this.ran) {
      return { restart: false, reason: 'the server stopped before it answered initialize; it is not restarted' };
    }
    const now = this.now();
    this.closes.push(now);
    while (this.closes.length > 0 && now - (this.closes[0] ?? now) > this.windowMs) {
      this.closes.shift();
    }
    if (this.closes.length > this.maxRestarts) {
      const minutes = this.windowMs / 60000;
      return { restart: false, reason: `the server stopped ${this.closes.length} times in ${minutes} minutes` };
    }
    return { restart: true };
  }
}
