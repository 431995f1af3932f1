import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type CommandFeature, RUN_SERVER_COMMAND, ServerCommands } from '../src/serverCommands';

type Registration = Parameters<CommandFeature['register']>[0];

/** The languageclient's feature: what it was handed to register with VS Code. */
function feature(): CommandFeature & { registered: string[] } {
  const registered: string[] = [];
  return {
    registered,
    register(data: Registration) {
      registered.push(...(data.registerOptions.commands ?? []));
    },
  };
}

function attached(...commands: string[]): ServerCommands {
  const served = new ServerCommands();
  const commandFeature = feature();
  served.attach(commandFeature);
  commandFeature.register({ id: 'initialize', registerOptions: { commands } });
  return served;
}

describe('server commands', () => {
  it("registers lintel's own commands with VS Code and none of the servers'", () => {
    const served = new ServerCommands();
    const commandFeature = feature();
    served.attach(commandFeature);
    commandFeature.register({
      id: 'initialize',
      registerOptions: { commands: ['lintel.runTests', '_typescript.applyCodeActionCommand', 'gopls.tidy'] },
    });
    commandFeature.register({ id: 'later', registerOptions: { commands: ['basedpyright.restartserver'] } });
    assert.deepEqual(commandFeature.registered, ['lintel.runTests']);
  });

  it("runs a code action's server command through the extension's, and gives it back for a resolve", () => {
    const served = attached('lintel.openDocumentation', '_typescript.applyCodeActionCommand');
    const action = {
      title: 'Add async modifier to containing function',
      command: { title: 'Add async', command: '_typescript.applyCodeActionCommand', arguments: [{ action: 1 }] },
    };
    const own = { title: 'Open the documentation', command: 'lintel.openDocumentation', arguments: ['https://x'] };
    const answer = [action, own];
    assert.equal(served.wrap(answer), answer);
    assert.deepEqual(action.command, {
      title: 'Add async',
      command: RUN_SERVER_COMMAND,
      arguments: ['_typescript.applyCodeActionCommand', [{ action: 1 }]],
    });
    assert.deepEqual(own.command, 'lintel.openDocumentation');
    served.unwrap(action);
    assert.deepEqual(action.command, {
      title: 'Add async',
      command: '_typescript.applyCodeActionCommand',
      arguments: [{ action: 1 }],
    });
  });

  it('finds the commands of completion lists, code lenses and inlay hint label parts; leaves VS Code commands', () => {
    const served = attached('gopls.run_tests', '_typescript.applyCompletionCodeAction');
    const list = {
      items: [
        { label: 'x', command: { title: '', command: '_typescript.applyCompletionCodeAction', arguments: [] } },
        { label: 'y', command: { title: '', command: 'editor.action.triggerParameterHints' } },
      ],
    };
    const lens = { range: {}, command: { title: 'run test', command: 'gopls.run_tests', arguments: ['file'] } };
    const hint = { label: [{ value: 'x', command: { title: '', command: 'gopls.run_tests' } }] };
    served.wrap(list);
    served.wrap([lens]);
    served.wrap([hint]);
    assert.deepEqual(
      [list.items[0]?.command.command, list.items[1]?.command.command, lens.command.command],
      [RUN_SERVER_COMMAND, 'editor.action.triggerParameterHints', RUN_SERVER_COMMAND],
    );
    assert.deepEqual(hint.label[0]?.command, {
      title: '',
      command: RUN_SERVER_COMMAND,
      arguments: ['gopls.run_tests', []],
    });
  });

  it('sends a resolve the server command as the server made it, and wraps the answer', async () => {
    const served = attached('_typescript.applyRefactoring');
    const item = { title: 'Extract', command: { title: 'x', command: '_typescript.applyRefactoring', arguments: [1] } };
    served.wrap(item);
    const sent: string[] = [];
    const resolve = served.middleware().resolveCodeAction;
    assert.ok(resolve);
    const resolved = await resolve(item, {} as never, (it) => {
      sent.push((it as unknown as typeof item).command.command);
      return { ...structuredClone(item), edit: undefined };
    });
    assert.deepEqual(sent, ['_typescript.applyRefactoring']);
    assert.equal((resolved as unknown as typeof item).command.command, RUN_SERVER_COMMAND);
    assert.equal(item.command.command, RUN_SERVER_COMMAND);
  });
});
