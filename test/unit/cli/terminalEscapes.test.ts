import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { describeInteraction } from '../../../src/main/cli/commands/login.js';
import { printBrokerError } from '../../../src/main/cli/printError.js';

// Anything a terminal would act on: C0 controls but newline and tab, DEL, C1 controls (0x9b is
// CSI on an 8-bit terminal), and bidi overrides that reorder what the user reads.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
const HOSTILE = '\u001b]2;PWNED-TITLE\u0007\u001b[2J\u009b31m\u202e';

function written(print: (out: PassThrough) => void): string {
  const out = new PassThrough();
  print(out);
  return out.read()?.toString() ?? '';
}

// B9 of the security review: a hostile issuer's device code and page, and a profile name
// from argv echoed in an error, reached the terminal with their escapes.
describe('what the CLI prints from the network reaches the terminal as text only (B9)', () => {
  it("prints a hostile issuer's device code and verification URI without escapes", () => {
    const text = describeInteraction({
      profile: 'sso',
      kind: 'device',
      userCode: `ABCD-EFGH${HOSTILE}`,
      verificationUri: `https://issuer.example/device${HOSTILE}`,
      verificationUriComplete: `https://issuer.example/device?code=x${HOSTILE}`,
    });
    expect(text).not.toMatch(CONTROL);
    expect(text).toContain('ABCD-EFGH');
    expect(text).toContain('https://issuer.example/device');
    expect(text).not.toContain('PWNED');
  });

  it("prints a plugin's message and a browser URL without escapes", () => {
    expect(describeInteraction({ profile: `p${HOSTILE}`, kind: 'message', text: `open ${HOSTILE}now` })).not.toMatch(
      CONTROL,
    );
    expect(describeInteraction({ profile: 'p', kind: 'browser', url: `http://127.0.0.1:1/${HOSTILE}` })).not.toMatch(
      CONTROL,
    );
  });

  it('prints an error answer, and an answer that is no error body at all, without escapes', () => {
    const json = written((out) =>
      printBrokerError(
        {
          status: 404,
          headers: {},
          body: JSON.stringify({
            error: { code: 'unknown-profile', message: `no profile "x${HOSTILE}"`, hint: `see ${HOSTILE}` },
          }),
        },
        out,
      ),
    );
    expect(json).toMatch(/^kubecred: no profile "x/);
    expect(json).not.toMatch(CONTROL);
    const raw = written((out) =>
      printBrokerError({ status: 502, headers: {}, body: `<html>${HOSTILE}bad gateway</html>` }, out),
    );
    expect(raw).toContain('kubecred: the broker answered 502: <html>');
    expect(raw).not.toMatch(CONTROL);
    expect(raw.endsWith('\n')).toBe(true);
  });
});
