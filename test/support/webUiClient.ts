import { request as httpRequest } from 'node:http';
import type { PendingPrompt, PromptAnswer } from '../../src/shared/api/prompts.js';

/**
 * The broker's web UI driven over HTTP, as its page drives it: a one-time link traded for a
 * session, then the state with the pending prompts, and answers to them. For tests that need
 * the GUI's answer but not its pixels (approvalHeadless.test.ts does the same by hand).
 */
export interface WebUiClient {
  prompts(): Promise<PendingPrompt[]>;
  answer(id: string, answer: PromptAnswer): Promise<number>;
}

/** Opens a session with a one-time link (`kubecred ui --print`, or what the broker opened). */
export async function webUiClient(link: string): Promise<WebUiClient> {
  const url = new URL(link);
  const token = url.hash.slice('#token='.length);
  const session = await send(url, 'POST', '/api/session', { token });
  if (session.status !== 200) throw new Error(`the web UI refused the link: ${session.status} ${session.body}`);
  const authorization = `Bearer ${(JSON.parse(session.body) as { session: string }).session}`;
  return {
    prompts: async () => {
      const state = await send(url, 'GET', '/api/state', undefined, authorization);
      if (state.status !== 200) throw new Error(`GET /api/state: ${state.status} ${state.body}`);
      return (JSON.parse(state.body) as { prompts: PendingPrompt[] }).prompts;
    },
    answer: async (id, answer) =>
      (await send(url, 'POST', `/api/prompts/${encodeURIComponent(id)}`, answer, authorization)).status,
  };
}

function send(
  base: URL,
  method: string,
  path: string,
  body?: unknown,
  authorization?: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const headers = {
      host: base.host,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(authorization ? { authorization } : {}),
    };
    const req = httpRequest(new URL(path, base.origin), { method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
