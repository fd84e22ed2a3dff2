import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { updateProfile } from '../../src/main/config/configEditor.js';
import { BrokerError } from '../../src/main/core/brokerError.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi, WebUiPorts } from '../../src/main/webui/webUiPorts.js';
import { httpTransport, type HttpTransport } from '../../src/renderer/api/httpTransport.js';
import type { GuardChange } from '../../src/shared/api/status.js';
import { uiPath } from '../../src/shared/api/uiContract.js';
import { bareWebUiPorts } from '../support/bareWebUiPorts.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

class MemoryStorage {
  private readonly items = new Map<string, string>();
  getItem = (key: string) => this.items.get(key) ?? null;
  setItem = (key: string, value: string) => void this.items.set(key, value);
  removeItem = (key: string) => void this.items.delete(key);
}

/** A web UI on the bare ports and these, with a session open; its log lines go to `lines`. */
async function openWebUi(
  ports: Partial<WebUiPorts>,
  lines: string[],
): Promise<{ ui: WebUi; transport: HttpTransport; bearer: string }> {
  const storage = new MemoryStorage();
  const ui = await startWebUi({ ports: { ...bareWebUiPorts(), ...ports }, log: (l) => lines.push(l) });
  const url = new URL(ui.url);
  const transport = httpTransport(storage, url.origin);
  await transport.openSession(new URLSearchParams(url.hash.slice(1)).get('token')!);
  return { ui, transport, bearer: `Bearer ${storage.getItem('kubecred-session')}` };
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

  const open = async (guard: WebUiPorts['guard']) => {
    const opened = await openWebUi(guard ? { guard } : {}, lines);
    ui = opened.ui;
    return opened;
  };

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

// Issue 33, "editable in the window": the rules themselves are written to config.yaml from the
// window, through the same editor (and so the same validation) as every other change of a profile.
describe("the web UI's guard rules operation", () => {
  let ui: WebUi | undefined;
  let home: TempHome;
  let configFile: string;
  const lines: string[] = [];
  const CONFIG = [
    '# my profiles',
    'profiles:',
    '  - name: prod # the big one',
    '    provider: static',
    '    proxy: { port: 47100, server: "https://k8s.example:6443" }',
    '',
  ].join('\n');
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
    lines.length = 0;
    await home?.cleanup();
  });

  /** The port as the broker's web UI host wires it (minus its proxy check): config.yaml's own editor. */
  async function open(withPort = true) {
    home = await makeTempHome();
    configFile = path.join(home.dir, 'config.yaml');
    await writeFile(configFile, CONFIG);
    const ports: Partial<WebUiPorts> = withPort
      ? { setGuard: async (profile, guard) => void (await updateProfile(configFile, profile, { guard })) }
      : {};
    const opened = await openWebUi(ports, lines);
    ui = opened.ui;
    return opened;
  }
  const written = async () => parse(await readFile(configFile, 'utf8')) as { profiles: Record<string, unknown>[] };

  it('writes the rules to config.yaml, comments kept, and takes the guard away again', async () => {
    const { transport } = await open();
    const rules: Record<string, string | string[]>[] = [
      { action: 'read-only' },
      { name: 'no secrets', action: 'deny', resources: ['secrets'], namespaces: ['prod'] },
    ];
    await transport.setGuard('prod', { rules });
    expect((await written()).profiles[0]!.guard).toEqual({ rules });
    const text = await readFile(configFile, 'utf8');
    expect(text).toContain('# my profiles');
    expect(text).toContain('# the big one');
    await transport.setGuard('prod', { rules: null });
    expect((await written()).profiles[0]).not.toHaveProperty('guard');
    expect(lines.filter((l) => l.includes('guard'))).toEqual([
      'web UI: guard of prod set to 2 rules',
      'web UI: guard of prod removed',
    ]);
  });

  it("refuses rules config.yaml's schema refuses, in its words, naming the field, and writes nothing", async () => {
    const { transport } = await open();
    await transport.setGuard('prod', { rules: [{ action: 'read-only' }] });
    const before = await readFile(configFile, 'utf8');
    const refused = transport.setGuard('prod', {
      rules: [{ action: 'read-only' }, { action: 'deny', resources: ['Pods!'] }],
    });
    await expect(refused).rejects.toMatchObject({
      code: 'bad-request',
      field: 'guard.rules[1].resources[0]',
      message: expect.stringContaining('a resource looks like pods, pods/exec, pods/*, deployments.apps or *'),
    });
    await expect(transport.setGuard('prod', { rules: [{ action: 'allow' }] })).rejects.toMatchObject({
      field: 'guard.rules[0].action',
      message: expect.stringContaining('a guard rule action is read-only, confirm or deny'),
    });
    await expect(transport.setGuard('prod', { rules: [] })).rejects.toMatchObject({
      message: expect.stringContaining('a guard has at least one rule'),
    });
    await expect(transport.setGuard('prod', { rules: [{ action: 'deny', verb: 'get' }] })).rejects.toMatchObject({
      code: 'bad-request',
    });
    expect(await readFile(configFile, 'utf8')).toBe(before);
  });

  it('refuses a body in no shape of rules before the broker sees it', async () => {
    const { bearer } = await open();
    for (const body of [{}, { rules: 'read-only' }, { rules: [{ action: 1 }] }, { rules: null, more: 1 }]) {
      const answer = await fetch(new URL(uiPath('setGuard', { profile: 'prod' }), ui!.origin), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: bearer },
        body: JSON.stringify(body),
      });
      expect([body, answer.status]).toEqual([body, 400]);
    }
    expect(await readFile(configFile, 'utf8')).toBe(CONFIG);
  });

  it('says so where the shell runs no exec proxy', async () => {
    const { transport } = await open(false);
    await expect(transport.setGuard('prod', { rules: null })).rejects.toMatchObject({ code: 'not-found' });
  });
});
