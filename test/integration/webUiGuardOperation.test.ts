import { afterEach, describe, expect, it } from 'vitest';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import { httpTransport, type HttpTransport } from '../../src/renderer/api/httpTransport.js';
import type { GuardChange } from '../../src/shared/api/status.js';
import { uiPath } from '../../src/shared/api/uiContract.js';
import { bareWebUiPorts } from '../support/bareWebUiPorts.js';

class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

// Issue 33: the window lifts a proxied profile's guard, or puts it back, through the one contract.
describe("the web UI's guard operation", () => {
  let ui: WebUi | undefined;
  const lines: string[] = [];
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
    lines.length = 0;
  });

  async function open(guard: WebUiPorts['guard']): Promise<{ transport: HttpTransport; bearer: string }> {
    const storage = new MemoryStorage();
    ui = await startWebUi({ ports: { ...bareWebUiPorts(), ...(guard ? { guard } : {}) }, log: (l) => lines.push(l) });
    const url = new URL(ui.url);
    const transport = httpTransport(storage, url.origin);
    await transport.openSession(new URLSearchParams(url.hash.slice(1)).get('token')!);
    return { transport, bearer: `Bearer ${storage.getItem('kubecred-session')}` };
  }

  it("hands the change to the broker and answers the guard's state", async () => {
    const changes: [string, GuardChange][] = [];
    const { transport } = await open(async (profile, change) => {
      changes.push([profile, change]);
      return { profile, rules: 1, offUntil: change.off ? '2026-01-01T12:15:00.000Z' : null };
    });
    expect(await transport.guard('prod/eu', { off: true, forSeconds: 900 })).toEqual({
      profile: 'prod/eu',
      rules: 1,
      offUntil: '2026-01-01T12:15:00.000Z',
    });
    expect(await transport.guard('prod/eu', { off: false })).toMatchObject({ offUntil: null });
    expect(changes).toEqual([
      ['prod/eu', { off: true, forSeconds: 900 }],
      ['prod/eu', { off: false }],
    ]);
    expect(lines.filter((l) => l.includes('guard'))).toEqual([
      'web UI: guard of prod/eu lifted for 900 s',
      'web UI: guard of prod/eu put back',
    ]);
  });

  it("refuses a body outside the schema before the broker sees it, and says the broker's own refusal", async () => {
    let called = 0;
    const { transport, bearer } = await open(async () => {
      called++;
      throw new BrokerError('bad-request', 'profile "dev" has no guard', 'add one in config.yaml');
    });
    for (const body of [{ off: true, forSeconds: 0 }, { off: true }, { off: false, forSeconds: 60 }, {}]) {
      const answer = await fetch(new URL(uiPath('guard', { profile: 'dev' }), ui!.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer },
        body: JSON.stringify(body),
      });
      expect([body, answer.status]).toEqual([body, 400]);
    }
    expect(called).toBe(0);
    await expect(transport.guard('dev', { off: false })).rejects.toMatchObject({
      code: 'bad-request',
      message: 'profile "dev" has no guard',
      hint: 'add one in config.yaml',
    });
  });

  it('says so where the shell runs no exec proxy', async () => {
    const { transport } = await open(undefined);
    await expect(transport.guard('prod', { off: false })).rejects.toMatchObject({ code: 'not-found' });
  });
});
