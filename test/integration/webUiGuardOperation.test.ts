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

/** A page with a session opened from a link of `origin`, as a browser tab holds one. */
async function pageOf(ui: WebUi, origin: Parameters<WebUi['newLink']>[0]): Promise<HttpTransport> {
  const link = new URL(ui.newLink(origin));
  const page = httpTransport(new MemoryStorage(), link.origin);
  await page.openSession(new URLSearchParams(link.hash.slice(1)).get('token')!);
  return page;
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

// Issue 41 item 2, security review 4 D5: lifting, changing or removing a guard is the person's
// act, as an approval's Allow is. A page whose link came through the socket (any program of the
// user can ask for one) may put a guard back, nothing more; a page the broker opened may, and
// the broker hears who did it.
describe('who may lift, change or remove a guard from a page', () => {
  let ui: WebUi | undefined;
  const lines: string[] = [];
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
    lines.length = 0;
  });

  it('a session minted through the socket gets 403 for a lift, new rules or a removal, and the broker hears of none', async () => {
    const asked: unknown[] = [];
    const opened = await openWebUi(
      {
        guard: async (profile, change, asker) => (
          asked.push(['guard', change, asker]),
          { profile, rules: 1, offUntil: null }
        ),
        setGuard: async (profile, guard, asker) => void asked.push(['setGuard', guard, asker]),
      },
      lines,
    );
    ui = opened.ui;
    const socketPage = await pageOf(ui, { label: 'python3 (pid 666)', overSocket: true });
    const refusals = [
      socketPage.guard('prod', { off: true, forSeconds: 43_200 }),
      socketPage.setGuard('prod', { rules: null }),
      socketPage.setGuard('prod', { rules: [{ action: 'confirm', verbs: ['get'] }] }),
    ];
    for (const refused of refusals)
      await expect(refused).rejects.toMatchObject({
        code: 'denied',
        message: expect.stringContaining('a page opened through the socket (kubecred ui, or any other program) cannot'),
      });
    expect(asked).toEqual([]);
    // Putting it back only tightens: any page may.
    await socketPage.guard('prod', { off: false });
    expect(asked).toEqual([
      [
        'guard',
        { off: false },
        { caller: { name: 'a Kubecred page (link of python3 (pid 666))' }, client: 'web-ui', byThePerson: false },
      ],
    ]);
    expect(lines.filter((l) => l.includes('refused'))).toEqual([
      'web UI: refused to lift the guard of prod for a session opened from the link of python3 (pid 666)',
      'web UI: refused to remove the guard of prod for a session opened from the link of python3 (pid 666)',
      'web UI: refused to change the guard rules of prod for a session opened from the link of python3 (pid 666)',
    ]);
  });

  it("a page the broker opened lifts and removes, and the broker is told it was the person's page", async () => {
    const asked: unknown[] = [];
    const opened = await openWebUi(
      {
        guard: async (profile, change, asker) => (
          asked.push(['guard', change, asker]),
          { profile, rules: 1, offUntil: '2026-01-01T12:15:00.000Z' }
        ),
        setGuard: async (profile, guard, asker) => void asked.push(['setGuard', guard, asker]),
      },
      lines,
    );
    ui = opened.ui;
    const page = await pageOf(ui, { label: 'the broker, for an approval' });
    await page.guard('prod', { off: true, forSeconds: 900 });
    await page.setGuard('prod', { rules: null });
    const person = {
      caller: { name: 'a Kubecred page (link of the broker, for an approval)' },
      client: 'web-ui',
      byThePerson: true,
    };
    expect(asked).toEqual([
      ['guard', { off: true, forSeconds: 900 }, person],
      ['setGuard', null, person],
    ]);
  });
});

// Security review 4 D5's other door: the profile edit form writes config.yaml's fields as given,
// so without a gate a page would take a guard away with `guard: null`, unasked and unaudited.
describe("the profile edit form and the person's gates", () => {
  let ui: WebUi | undefined;
  let home: TempHome | undefined;
  const lines: string[] = [];
  afterEach(async () => {
    await ui?.close();
    ui = undefined;
    lines.length = 0;
    await home?.cleanup();
  });
  const CONFIG = [
    'profiles:',
    '  - name: prod',
    '    provider: static',
    '    approval: always',
    '    proxy: { port: 47100, server: "https://k8s.example:6443" }',
    '    guard: read-only',
    '',
  ].join('\n');

  async function pages() {
    home = await makeTempHome();
    const configFile = path.join(home.dir, 'config.yaml');
    await writeFile(configFile, CONFIG);
    const opened = await openWebUi(
      {
        updateProfile: async (profile, changes) => void (await updateProfile(configFile, profile, changes)),
        profileConfig: async (profile) => {
          const config = parse(await readFile(configFile, 'utf8')) as { profiles: Record<string, unknown>[] };
          return config.profiles.find((p) => p.name === profile)!;
        },
      },
      lines,
    );
    ui = opened.ui;
    return {
      configFile,
      socketPage: await pageOf(ui, { label: 'python3 (pid 666)', overSocket: true }),
      brokerPage: await pageOf(ui, { label: 'the broker' }),
    };
  }

  it('no page takes a guard or the exec proxy away through the edit form, and a socket page cannot lower approval', async () => {
    const { configFile, socketPage, brokerPage } = await pages();
    // N6: the page learns at once whether it may allow, and so offers no Allow it cannot give.
    expect([socketPage.mayAllow, brokerPage.mayAllow]).toEqual([false, true]);
    for (const page of [socketPage, brokerPage]) {
      await expect(page.updateProfile('prod', { guard: null })).rejects.toMatchObject({
        code: 'bad-request',
        message: 'the edit form does not change guard: of profile prod',
        hint: expect.stringContaining('Guard card'),
      });
      await expect(page.updateProfile('prod', { description: 'x', proxy: null })).rejects.toMatchObject({
        code: 'bad-request',
      });
    }
    for (const lower of ['never', 'once-per-process', null])
      await expect(socketPage.updateProfile('prod', { approval: lower })).rejects.toMatchObject({
        code: 'denied',
        message: expect.stringContaining(
          'a page opened through the socket (kubecred ui, or any other program) cannot lower approval',
        ),
      });
    expect(await readFile(configFile, 'utf8')).toBe(CONFIG);
    expect(lines.filter((l) => l.includes('refused a change'))).toHaveLength(7);
    // The person's page lowers approval; a socket page raises it again, as putting a guard back
    // only tightens; any page changes what is no gate.
    await brokerPage.updateProfile('prod', { approval: 'once-per-process' });
    await socketPage.updateProfile('prod', { approval: 'always' });
    await socketPage.updateProfile('prod', { description: 'the big one' });
    expect(
      (parse(await readFile(configFile, 'utf8')) as { profiles: Record<string, unknown>[] }).profiles[0],
    ).toMatchObject({
      approval: 'always',
      description: 'the big one',
      guard: 'read-only',
    });
  });
});
