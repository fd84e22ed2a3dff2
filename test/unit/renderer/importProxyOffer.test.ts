import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ImportDone } from '../../../src/renderer/components/ImportDone.js';
import { contextsWords } from '../../../src/renderer/components/ProxyOffer.js';
import { refusalWords } from '../../../src/renderer/refusalWords.js';
import type { ImportMove, ImportResult } from '../../../src/shared/api/webUiApi.js';

const move = (file: string, user: string, profile: string): ImportMove => ({
  file,
  user,
  profile,
  provider: 'static',
  secrets: ['token'],
  notes: [],
  news: [],
  contexts: [],
  profileText: '',
  ownLoginChosen: false,
});

function done(moves: ImportMove[]): string {
  const result: ImportResult = { moves, backups: [], leftFiles: [] };
  return renderToStaticMarkup(
    createElement(ImportDone, {
      result,
      onTurnOnProxy: () => Promise.reject(new Error('not here')),
      onUndo: () => Promise.reject(new Error('not here')),
    }),
  );
}

// Issue 28, item 7: the exec proxy offered on the import's result screen, one row a new profile.
describe("the import's result screen and the exec proxy", () => {
  it('offers the proxy once for each new profile, with quiet buttons, before the way on', () => {
    const html = done([move('a', 'deployer', 'deployer'), move('b', 'deployer', 'deployer'), move('a', 'ci', 'ci')]);
    const rows = [...html.matchAll(/data-proxy-profile="([^"]*)"/g)].map((m) => m[1]);
    expect(rows).toEqual(['deployer', 'ci']);
    expect(html).toContain('New profiles: deployer, ci.');
    const buttons = [...html.matchAll(/<button[^>]*>/g)].map((m) => m[0]);
    expect(buttons).toHaveLength(2);
    for (const button of buttons) expect(button).toContain('class="secondary small"');
    expect(html).toContain('aria-label="Route through the exec proxy: ci"');
    expect(html.indexOf('Optional: route through the exec proxy')).toBeLessThan(html.indexOf('See the profiles'));
    // The import's own outcome stays apart from the option: its live region holds no button.
    const status = /<div role="status" aria-label="import done"[\s\S]*?<\/div>/.exec(html)![0];
    expect(status).not.toContain('<button');
  });

  it('says which contexts, and a refusal in the broker’s words', () => {
    expect(contextsWords(['staging'])).toBe('Context staging');
    expect(contextsWords(['a', 'b'])).toBe('Contexts a, b');
    const refusal = Object.assign(new Error('context "x" names no cluster with a server'), { hint: 'check it' });
    expect(refusalWords(refusal)).toBe('context "x" names no cluster with a server. Check it');
    expect(refusalWords(new Error('no route'))).toBe('no route');
  });
});
