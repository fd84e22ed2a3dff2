import { describe, expect, it } from 'vitest';
import { confirmGuardedRequest } from '../../../src/main/broker/guardConfirmations.js';
import type { ApprovalDecision, ApprovalRequest, ApprovalUiPort } from '../../../src/main/core/uiPorts.js';
import type { GuardConfirmation } from '../../../src/main/proxy/guardConfirmation.js';

const confirmation: GuardConfirmation = {
  profile: 'prod',
  rule: 'ask before deletes',
  pid: 4242,
  request: {
    verb: 'delete',
    group: '',
    resource: 'configmaps',
    subresource: '',
    namespace: 'default',
    name: 'keep',
    method: 'DELETE',
    path: '/api/v1/namespaces/default/configmaps/keep',
    dryRun: false,
    query: '',
    queryTruncated: false,
    digest: '249fb716b276b0f427497ed1d5e01b11143eaeab480a4ce6f3f0528abecba590',
    body: { bytes: 0, mediaType: '', text: false, preview: '', truncated: false },
  },
};

/** The broker's answer to the proxy for each way the user's question can end. */
async function answerFor(decision: ApprovalDecision) {
  const asked: ApprovalRequest[] = [];
  const ui: ApprovalUiPort = { askApproval: async (request) => (asked.push(request), decision) };
  const answer = await confirmGuardedRequest(ui, { describe: async (pid) => ({ pid, name: 'kubectl' }) }, confirmation);
  return { answer, asked };
}

describe('the answer to a confirm rule', () => {
  it('names the program and the request in the question; Allow lets it through', async () => {
    const { answer, asked } = await answerFor({ allow: true });
    expect(answer).toEqual({ allow: true });
    expect(asked[0]).toMatchObject({
      profile: 'prod',
      caller: { pid: 4242, name: 'kubectl' },
      guard: {
        rule: 'ask before deletes',
        action: 'delete configmaps "keep" in namespace "default"',
        // What the request sends goes to the prompt, which shows it and is bound to it.
        request: {
          method: 'DELETE',
          path: '/api/v1/namespaces/default/configmaps/keep',
          query: '',
          queryTruncated: false,
          digest: confirmation.request.digest,
          body: confirmation.request.body,
        },
      },
    });
  });

  it("a No is the user's; a question nobody answered says it timed out, for the proxy's audit", async () => {
    expect((await answerFor({ allow: false })).answer).toEqual({ allow: false });
    expect((await answerFor({ allow: false, timedOut: true })).answer).toEqual({ allow: false, timedOut: true });
  });
});
