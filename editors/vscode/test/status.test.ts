import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusView } from '../src/lib/status';

describe('statusView', () => {
  it('shows the detected languages', () => {
    const view = statusView({ server: 'running', trusted: true, languages: ['go', 'node'], running: [] });
    assert.equal(view.text, '$(check) lintel: go, node');
  });

  it('spins while commands run', () => {
    const view = statusView({ server: 'running', trusted: true, languages: ['go'], running: ['go test'] });
    assert.equal(view.text, '$(sync~spin) lintel: go test');
  });

  it('says when nothing is detected, the workspace is untrusted or the server is down', () => {
    assert.equal(
      statusView({ server: 'running', trusted: true, languages: [], running: [] }).text,
      '$(check) lintel: no project',
    );
    assert.match(
      statusView({ server: 'running', trusted: false, languages: ['python'], running: [] }).tooltip,
      /untrusted/,
    );
    assert.equal(statusView({ server: 'stopped', trusted: true, running: ['x'] }).text, '$(error) lintel');
    assert.equal(statusView({ server: 'starting', trusted: true, running: [] }).text, '$(sync~spin) lintel');
  });
});
