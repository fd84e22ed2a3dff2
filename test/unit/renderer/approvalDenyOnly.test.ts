import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApprovalPrompt } from '../../../src/renderer/components/ApprovalPrompt.js';
import { MayAllow } from '../../../src/renderer/components/approverContext.js';

const prompt = {
  id: 'p1',
  waiting: 1,
  expiresAt: '2026-01-01T12:02:00Z',
  kind: 'approval' as const,
  profile: 'prod',
  caller: { pid: 4242, name: 'kubectl' },
  callers: [{ pid: 4242, name: 'kubectl' }],
};

function buttons(mayAllow: boolean): { labels: string[]; html: string } {
  const html = renderToStaticMarkup(
    createElement(
      MayAllow.Provider,
      { value: mayAllow },
      createElement(ApprovalPrompt, { prompt, ids: { title: 't', description: 'd' }, onAnswer: () => undefined }),
    ),
  );
  return { labels: [...html.matchAll(/<button[^>]*>([^<]*)<\/button>/g)].map((m) => m[1]!), html };
}

// New user review 4, N6: a kubecred ui tab offered "Allow once", which the broker always refuses
// there. No button is offered that cannot work.
describe('an approval in a page that may deny only', () => {
  it('offers Deny alone, and says where to allow', () => {
    const { labels, html } = buttons(false);
    expect(labels).toEqual(['Deny']);
    expect(html).toContain('can deny but not allow');
    expect(html).toContain('the Kubecred window');
  });

  it('offers Allow once, Allow for and Deny where it may allow', () => {
    const { labels, html } = buttons(true);
    expect(labels).toEqual(['Allow once', 'Allow for', 'Deny']);
    expect(html).not.toContain('can deny but not allow');
  });
});
