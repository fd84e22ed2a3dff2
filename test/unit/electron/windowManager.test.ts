import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { PendingPrompt } from '../../../src/shared/api/prompts.js';

/** A stand-in for Electron's BrowserWindow: records what the manager asks of each window. */
const created: FakeWindow[] = [];
class FakeWindow {
  readonly calls: string[] = [];
  destroyed = false;
  readonly webContents = { on: () => undefined, setWindowOpenHandler: () => undefined };
  constructor() {
    created.push(this);
  }
  on() {
    return this;
  }
  once() {
    return this;
  }
  loadURL() {
    return Promise.resolve();
  }
  isDestroyed() {
    return this.destroyed;
  }
  show() {
    this.calls.push('show');
  }
  moveTop() {
    this.calls.push('moveTop');
  }
  focus() {
    this.calls.push('focus');
  }
  close() {
    this.destroyed = true;
  }
}
vi.mock('electron', () => ({ BrowserWindow: FakeWindow, shell: { openExternal: vi.fn() } }));

const { WindowManager } = await import('../../../src/main/electron/windows.js');

const pin = (id: string): PendingPrompt => ({
  id,
  kind: 'pin',
  waiting: 1,
  expiresAt: '2026-01-01T00:02:00.000Z',
  token: 'yubikey',
  tokenLabel: 'YubiKey PIV',
  flags: { countLow: false, finalTry: false, locked: false },
});

// Electron review 2, F7: the tray's "1 question waiting: show" brings the prompt forward.
describe("the windows of the questions that wait, from the tray's item", () => {
  beforeEach(() => void created.splice(0));

  it('brings an open prompt window to the front and focuses it, without opening a second one', () => {
    const windows = new WindowManager('http://127.0.0.1:41234', 'kubecred-windows');
    windows.show(pin('p1'));
    windows.showPrompts([pin('p1')]);
    expect(created).toHaveLength(1);
    expect(created[0]?.calls).toEqual(['show', 'moveTop', 'focus']);
  });

  it('opens again the window of a question that still waits after its window was closed', () => {
    const windows = new WindowManager('http://127.0.0.1:41234', 'kubecred-windows');
    windows.show(pin('p1'));
    created[0]?.close();
    windows.showPrompts([pin('p1')]);
    expect(created).toHaveLength(2);
    expect(created[1]?.calls).toEqual([]);
  });
});
