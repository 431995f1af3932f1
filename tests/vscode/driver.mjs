// Drives VS Code (code-server) in headless Chromium for tests/vscode: one browser per test session, one page (a VS Code
// window on a folder) at a time. It reads what the user sees — status bar, Problems rows, notifications, quick picks,
// the active editor — and acts through the keyboard and the command palette, as a user would.
//
// Protocol: one JSON request a line on stdin ({"id", "op", ...args}), one JSON answer a line on stdout
// ({"id", "ok": true, "result"} or {"id", "ok": false, "error"}). Every wait here is short and bounded; the Python side
// (tests/vscode/harness.py) polls these reads until what it waits for shows, under its own bounded deadline.
//
// Environment: LINTEL_PLAYWRIGHT (playwright-core's folder), LINTEL_CHROMIUM (the browser, /usr/bin/chromium).
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';
import * as path from 'node:path';

const { chromium } = await import(pathToFileURL(path.join(process.env.LINTEL_PLAYWRIGHT, 'index.mjs')).href);

const STEP_MS = 10_000; // the longest a single UI step may take before it is reported as failed

const browser = await chromium.launch({
  executablePath: process.env.LINTEL_CHROMIUM || '/usr/bin/chromium',
  headless: true,
  // A fresh, empty profile (playwright makes a temporary --user-data-dir) that reaches nothing but code-server.
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});

let context;
let page;
const blocked = new Set(); // requests that tried to leave 127.0.0.1

async function open({ url, width = 1400, height = 900 }) {
  await closePage();
  context = await browser.newContext({ viewport: { width, height } });
  await context.route('**/*', (route) => {
    const target = new URL(route.request().url());
    if (target.hostname === '127.0.0.1' || target.protocol === 'data:' || target.protocol === 'blob:') {
      return route.continue();
    }
    blocked.add(target.origin);
    return route.abort();
  });
  page = await context.newPage();
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
  return { blocked: [...blocked] };
}

async function closePage() {
  if (context !== undefined) {
    const closing = context;
    context = undefined;
    page = undefined;
    await closing.close().catch(() => undefined);
  }
}

function need() {
  if (page === undefined) {
    throw new Error('no VS Code window is open');
  }
  return page;
}

/** The status bar's items: id, text and accessible label. */
async function statusBar() {
  return need().$$eval('.statusbar-item', (items) =>
    items.map((item) => ({
      id: item.id,
      text: (item.textContent ?? '').trim(),
      label: item.getAttribute('aria-label') ?? '',
    })),
  );
}

/** Runs a command from the palette by its exact title ("Lintel: Run Tests"). */
async function command({ title }) {
  const p = need();
  await dismissQuickInput();
  await p.keyboard.press('F1');
  const input = p.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: STEP_MS });
  await input.fill(`>${title}`);
  // The first row whose label is exactly the title (the palette filters fuzzily).
  const row = p.locator('.quick-input-list .monaco-list-row', {
    has: p.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(title)}$`) }),
  });
  await row.first().waitFor({ timeout: STEP_MS });
  await row.first().click();
  return true;
}

async function dismissQuickInput() {
  const p = need();
  if (await p.locator('.quick-input-widget').isVisible()) {
    await p.keyboard.press('Escape');
  }
}

/** The open quick pick: its title and the labels of its rows (empty when none is open). */
async function quickPick() {
  const p = need();
  const widget = p.locator('.quick-input-widget');
  if (!(await widget.isVisible())) {
    return { open: false, title: '', items: [] };
  }
  const title = ((await widget.locator('.quick-input-titlebar .quick-input-title').first().textContent()) ?? '').trim();
  const items = await widget.locator('.quick-input-list .monaco-list-row').evaluateAll((rows) =>
    rows.map((row) => ({
      label: (row.querySelector('.label-name')?.textContent ?? '').trim(),
      description: (row.querySelector('.label-description')?.textContent ?? '').trim(),
      detail: (row.querySelector('.quick-input-list-label-meta, .monaco-icon-label-container + .quick-input-list-label-meta')?.textContent ?? '').trim(),
      aria: row.getAttribute('aria-label') ?? '',
    })),
  );
  return { open: true, title, items };
}

/** Picks the quick pick row whose label (or aria label) contains `label`. */
async function pick({ label }) {
  const p = need();
  const row = p.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: label });
  await row.first().waitFor({ timeout: STEP_MS });
  await row.first().click();
  return true;
}

/** Notification toasts and, when the center is open, its rows: message, source and buttons. */
async function notifications() {
  return need().$$eval('.notification-list-item', (items) =>
    items.map((item) => ({
      message: (item.querySelector('.notification-list-item-message')?.textContent ?? '').trim(),
      source: (item.querySelector('.notification-list-item-source')?.textContent ?? '').trim(),
      buttons: [...item.querySelectorAll('.notification-list-item-buttons-container .monaco-button')].map((b) =>
        (b.textContent ?? '').trim(),
      ),
      progress: item.querySelector('.monaco-progress-container.active, .monaco-progress-container.infinite') !== null,
    })),
  );
}

/** Clicks `button` on the notification whose message contains `message`. */
async function notificationButton({ message, button }) {
  const p = need();
  const item = p.locator('.notification-list-item', {
    has: p.locator('.notification-list-item-message', { hasText: message }),
  });
  await item.first().hover({ timeout: STEP_MS });
  const control = item.first().locator('.monaco-button', { hasText: new RegExp(`^${escapeRegExp(button)}$`) });
  await control.first().click({ timeout: STEP_MS });
  return true;
}

/** Opens the notification center (toasts that timed out are only listed there). */
async function notificationCenter() {
  const p = need();
  if (!(await p.locator('.notifications-center.visible').isVisible())) {
    await command({ title: 'Notifications: Show Notifications' });
  }
  return true;
}

/** The Problems view's rows (opened if needed, in its table mode): severity, message, file, source, code, line. */
async function problems() {
  const p = need();
  const panel = p.locator('.markers-panel');
  const table = p.locator('.markers-panel .markers-table-container');
  if (!(await panel.isVisible())) {
    await command({ title: 'View: Focus Problems (Errors, Warnings, Infos)' });
    await panel.waitFor({ timeout: STEP_MS });
  }
  if (!(await table.isVisible())) {
    return []; // the view shows its "no problems" message instead of the table
  }
  // The table is virtualized: rows beyond the view are not in the DOM. The tests' files have few findings, so all are
  // rendered; `total` lets the caller tell a short read from a short list.
  return p.$$eval('.markers-panel .markers-table-container .monaco-list-row', (rows) =>
    rows.map((row) => {
      const text = (selector) => (row.querySelector(selector)?.textContent ?? '').trim();
      const shown = (selector) => {
        const element = row.querySelector(selector);
        return element && element.getClientRects().length > 0 ? (element.textContent ?? '').trim() : '';
      };
      const icon = row.querySelector('.severity .marker-icon')?.className ?? '';
      const position = /Ln (\d+), Col (\d+)/.exec(text('.file .file-position'));
      return {
        severity: /\berror\b/.test(icon) ? 'error' : /\bwarning\b/.test(icon) ? 'warning' : 'info',
        source: text('.source'),
        // a code with a documentation link (codeDescription) is drawn as a link, not a label; the row's element
        // for the other one stays, hidden, with what an earlier row of the reused template showed
        code: shown('.code .code-label') || shown('.code .monaco-link'),
        message: text('.message'),
        file: text('.file .file-label'),
        line: position ? Number(position[1]) : null,
        column: position ? Number(position[2]) : null,
        // rows are virtualized: the row count of the whole table, to tell a short read from a short list
        total: Number(row.getAttribute('aria-setsize') ?? '0'),
      };
    }),
  );
}

/** Opens a workspace file by its relative path through Quick Open; waits for its tab. */
async function openFile({ file }) {
  const p = need();
  await dismissQuickInput();
  await p.keyboard.press('Control+P');
  const input = p.locator('.quick-input-widget .quick-input-box input');
  await input.waitFor({ state: 'visible', timeout: STEP_MS });
  await input.fill(file);
  const base = file.split('/').pop();
  const row = p.locator('.quick-input-list .monaco-list-row', {
    has: p.locator('.label-name', { hasText: new RegExp(`^${escapeRegExp(base)}$`) }),
  });
  await row.first().waitFor({ timeout: STEP_MS });
  await p.keyboard.press('Enter');
  await p.locator('.tabs-container .tab.active', { hasText: base }).waitFor({ timeout: STEP_MS });
  return true;
}

/** The active editor: its tab's title and path (from the tab's tooltip/title) and the cursor's line and column. */
async function editor() {
  const p = need();
  const tab = p.locator('.tabs-container .tab.active').first();
  const title = (await tab.count()) > 0 ? ((await tab.getAttribute('aria-label')) ?? '') : '';
  const dirty = (await tab.count()) > 0 && ((await tab.getAttribute('class')) ?? '').includes('dirty');
  const selection = (await statusBar()).find((item) => item.id === 'status.editor.selection');
  const match = /Ln (\d+), Col (\d+)/.exec(selection?.text ?? '');
  return {
    title,
    dirty,
    line: match ? Number(match[1]) : null,
    column: match ? Number(match[2]) : null,
  };
}

/** Key presses in the page (["Control+G"], …) with text typed between them ({"text": "12"}). */
async function keys({ steps }) {
  const p = need();
  for (const step of steps) {
    if (typeof step === 'string') {
      await p.keyboard.press(step);
    } else {
      await p.keyboard.type(step.text, { delay: 5 });
    }
  }
  return true;
}

/** Clicks an element with the given accessible role and name (a banner's "Trust", a dialog's button). */
async function clickRole({ role, name, exact = true }) {
  await need().getByRole(role, { name, exact }).first().click({ timeout: STEP_MS });
  return true;
}

/** Clicks the first element matching a CSS selector whose text contains `text` (a Problems row, a menu item). */
async function clickText({ selector, text }) {
  await need().locator(selector, { hasText: text }).first().click({ timeout: STEP_MS });
  return true;
}

/** Clicks the first visible element matching a CSS selector (the editor's light bulb). */
async function clickVisible({ selector }) {
  await need().locator(`${selector} >> visible=true`).first().click({ timeout: STEP_MS });
  return true;
}

/** The Testing view's rows (the view is opened if needed): text, accessible label (with the state), level. */
async function testItems() {
  const p = need();
  const tree = p.locator('.test-explorer-tree');
  if (!(await tree.isVisible())) {
    await command({ title: 'Testing: Focus on Test Explorer View' });
    await tree.waitFor({ timeout: STEP_MS });
  }
  return p.$$eval('.test-explorer-tree .monaco-list-row', (rows) =>
    rows.map((row) => ({
      text: (row.textContent ?? '').trim(),
      aria: row.getAttribute('aria-label') ?? '',
      level: Number(row.getAttribute('aria-level') ?? '0'),
      expanded: row.getAttribute('aria-expanded'),
    })),
  );
}

async function screenshot({ file }) {
  await need().screenshot({ path: file });
  return file;
}

/** The visible text of elements matching a CSS selector (a reading escape hatch for the tests' failure messages). */
async function texts({ selector, html = false }) {
  return need().$$eval(selector, (els, html) => els.map((el) => (html ? el.outerHTML : (el.textContent ?? '').trim())), html);
}

function escapeRegExp(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const OPS = {
  open,
  close: closePage,
  statusBar,
  command,
  quickPick,
  pick,
  notifications,
  notificationButton,
  notificationCenter,
  problems,
  openFile,
  editor,
  keys,
  clickRole,
  clickText,
  clickVisible,
  screenshot,
  testItems,
  texts,
  blocked: async () => [...blocked],
};

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) {
    continue;
  }
  let request;
  try {
    request = JSON.parse(line);
  } catch (error) {
    process.stdout.write(JSON.stringify({ id: null, ok: false, error: `bad request: ${error}` }) + '\n');
    continue;
  }
  const { id, op, ...args } = request;
  try {
    const handler = OPS[op];
    if (handler === undefined) {
      throw new Error(`unknown op ${op}`);
    }
    const result = await handler(args);
    process.stdout.write(JSON.stringify({ id, ok: true, result: result ?? null }) + '\n');
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    process.stdout.write(JSON.stringify({ id, ok: false, error: message }) + '\n');
  }
}
await closePage();
await browser.close();
