import { get as httpGet } from 'node:http';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startLoopbackServer } from '../../../src/main/providers/oidc/loopbackServer.js';
import { escapeHtml, renderRedirectPage, signedInPage } from '../../../src/main/providers/oidc/redirectPage.js';
import { parseRedirect } from '../../../src/main/providers/oidc/redirectRequest.js';
import { printable } from '../../../src/shared/printable.js';

const REDIRECT = new URL('http://127.0.0.1:43123/callback');

describe('OIDC loopback redirect parsing', () => {
  it('takes the code response that carries our state, with the exact URL to redeem', () => {
    const outcome = parseRedirect('GET', '/callback?code=abc&state=s1&iss=https%3A%2F%2Fissuer', REDIRECT, 's1');
    expect(outcome).toEqual({
      kind: 'code',
      url: new URL('http://127.0.0.1:43123/callback?code=abc&state=s1&iss=https%3A%2F%2Fissuer'),
    });
  });

  it("reports the issuer's error for our state, cleaned for a message", () => {
    expect(
      parseRedirect(
        'GET',
        '/callback?error=access_denied&error_description=User%20said%20no%0A%1B[31m&state=s1',
        REDIRECT,
        's1',
      ),
    ).toEqual({ kind: 'error', error: 'access_denied', description: 'User said no' });
    expect(parseRedirect('GET', '/callback?error=server_error&state=s1', REDIRECT, 's1')).toEqual({
      kind: 'error',
      error: 'server_error',
    });
  });

  it("ignores what is not this login's answer", () => {
    expect(parseRedirect('GET', '/favicon.ico', REDIRECT, 's1')).toEqual({ kind: 'not-ours' });
    expect(parseRedirect('POST', '/callback?code=abc&state=s1', REDIRECT, 's1')).toEqual({ kind: 'not-ours' });
    expect(parseRedirect('GET', '/callback?code=abc&state=other', REDIRECT, 's1')).toEqual({ kind: 'wrong-state' });
    expect(parseRedirect('GET', '/callback?code=abc', REDIRECT, 's1')).toEqual({ kind: 'wrong-state' });
    expect(parseRedirect('GET', '/callback?error=access_denied', REDIRECT, 's1')).toEqual({ kind: 'wrong-state' });
    expect(parseRedirect('GET', '/callback?state=s1', REDIRECT, 's1')).toEqual({ kind: 'wrong-state' });
  });

  it('bounds text from the issuer', () => {
    expect(printable('x'.repeat(300), 200)).toHaveLength(201);
    expect(parseRedirect('GET', `/callback?error=${'e'.repeat(300)}&state=s1`, REDIRECT, 's1')).toMatchObject({
      error: expect.stringMatching(/^e{200}…$/),
    });
  });

  it('renders a self-contained page that escapes the profile name', () => {
    const html = renderRedirectPage(signedInPage('<script>alert(1)</script>'));
    expect(html).toContain('You are signed in to &#60;script&#62;alert(1)&#60;/script&#62;');
    expect(html).not.toMatch(/<script|src=|href=/);
    expect(escapeHtml(`"'&`)).toBe('&#34;&#39;&#38;');
  });
});

/**
 * A browser tab's GET, through node:http: what the server answers, headers and page. (Not
 * fetch(): under Wine, where the Windows suite runs, fetch cannot reach 127.0.0.1.)
 */
function tabGet(url: string | URL): Promise<{ status: number; headers: Headers; text(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    httpGet(url, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers))
          if (typeof value === 'string') headers.set(name, value);
        const body = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, headers, text: async () => body });
      });
    }).once('error', reject);
  });
}

describe('OIDC loopback redirect server', () => {
  it('listens on 127.0.0.1, waits through strays, answers the tab with the outcome', async () => {
    const server = await startLoopbackServer(0, 'state-1', 'prod');
    try {
      expect(server.redirectUri.href).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
      const base = server.redirectUri.href;
      expect((await tabGet(new URL('/favicon.ico', base))).status).toBe(404);
      const stray = await tabGet(`${base}?code=x&state=forged`);
      expect(stray.status).toBe(400);
      expect(await stray.text()).toContain('kubecred login prod');

      const tab = tabGet(`${base}?code=the-code&state=state-1`);
      const arrival = await server.arrival;
      expect(arrival.response).toMatchObject({ kind: 'code' });
      arrival.respond(signedInPage('prod'));
      const page = await tab;
      expect(page.status).toBe(200);
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      expect(await page.text()).toContain('You are signed in to prod');
    } finally {
      await server.close();
    }
  });

  it('answers a tab still waiting when the login stops', async () => {
    const server = await startLoopbackServer(0, 's', 'prod');
    const tab = tabGet(`${server.redirectUri.href}?code=c&state=s`);
    await server.arrival;
    await server.close();
    const page = await tab;
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('Signing in to prod was stopped');
  });

  it('says when a fixed redirect port is taken', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      await expect(startLoopbackServer(port, 's', 'prod')).rejects.toMatchObject({
        code: 'provider-failed',
        message: expect.stringContaining(`port ${port} on 127.0.0.1 is in use`),
        hint: expect.stringContaining('redirectPort'),
      });
    } finally {
      blocker.close();
    }
  });
});
