import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PendingLogins } from '../../../src/renderer/components/PendingLogins.js';
import { deviceLoginLink } from '../../../src/renderer/components/deviceLoginLink.js';

const PAGE = 'https://idp.example.com/device';

/** The device login card as the web UI renders it, and its links as [href, text] pairs. */
function card(verificationUri: string, verificationUriComplete?: string) {
  const html = renderToStaticMarkup(
    createElement(PendingLogins, {
      interactions: [
        {
          profile: 'prod',
          kind: 'device',
          userCode: 'WDJB-MJHT',
          verificationUri,
          ...(verificationUriComplete !== undefined ? { verificationUriComplete } : {}),
        },
      ],
      onCancel: () => undefined,
    }),
  );
  const links = [...html.matchAll(/<a href="([^"]*)"[^>]*>([^<]*)<\/a>/g)].map((m) => [
    unescape(m[1]!),
    unescape(m[2]!),
  ]);
  return { html, links };
}

const unescape = (text: string) => text.replaceAll('&amp;', '&');

// I10 of the third security review: the card showed verification_uri and linked
// verification_uri_complete, so a hostile issuer could show one address and open another.
describe('the device login card', () => {
  it('shows the address its link opens: the complete one, when it is on the same site', () => {
    const complete = `${PAGE}?user_code=WDJB-MJHT&x=1`;
    expect(card(PAGE, complete).links).toEqual([[complete, complete]]);
  });

  it('links only the page it shows when the complete address is on another site, and flags that one', () => {
    const { html, links } = card(PAGE, 'https://evil.example.net/device?user_code=WDJB-MJHT');
    expect(links).toEqual([[PAGE, PAGE]]);
    expect(html).not.toContain('href="https://evil.example.net');
    expect(html).toContain('also sent <code>https://evil.example.net/device?user_code=WDJB-MJHT</code>');
    expect(html).toContain('Kubecred does not open it');
  });

  it('links a lone page as itself, and nothing that is not http(s)', () => {
    expect(card(PAGE).links).toEqual([[PAGE, PAGE]]);
    const { html, links } = card('javascript:alert(1)');
    expect(links).toEqual([]);
    expect(html).toContain('<code>javascript:alert(1)</code>');
  });
});

describe('deviceLoginLink', () => {
  it('takes a complete address only on the exact origin of the page (scheme, host and port)', () => {
    expect(deviceLoginLink(PAGE, 'https://idp.example.com/device?c=1')).toEqual({
      address: 'https://idp.example.com/device?c=1',
      linkable: true,
    });
    for (const other of [
      'http://idp.example.com/device?c=1',
      'https://idp.example.com:8443/device?c=1',
      'https://idp.example.com.evil.net/device',
      'https://idp.example.com@evil.net/device',
      'not a url',
    ])
      expect(deviceLoginLink(PAGE, other), other).toEqual({ address: PAGE, linkable: true, otherSite: other });
    expect(deviceLoginLink(PAGE, PAGE)).toEqual({ address: PAGE, linkable: true });
  });
});
