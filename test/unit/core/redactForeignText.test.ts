import { describe, expect, it } from 'vitest';
import { quoteStderr, redactForeignText, withoutTokens } from '../../../src/main/core/quoteStderr.js';

describe('redactForeignText (B8, B9)', () => {
  it("redacts the security review's example: a short hex token and a password with punctuation", () => {
    const text = redactForeignText(
      'rejected token 3f9c2a7d1b8e4f60a5d2c9e7b1f04a6d for user bob, password=Hunter2!Secret',
    );
    expect(text).not.toContain('3f9c2a7d1b8e4f60a5d2c9e7b1f04a6d');
    expect(text).not.toContain('Hunter2!Secret');
    expect(text).toBe('rejected token [redacted] for user bob, password=[redacted]');
  });

  it('redacts secret-sounding keys in JSON and YAML shapes, auth schemes, JWTs and API keys', () => {
    const cases: Array<[string, string]> = [
      ['{"access_token": "ya29.a0AfH6SMBx", "expires_in": 3599}', 'ya29.a0AfH6SMBx'],
      ['client_secret: s3cr3t-value', 's3cr3t-value'],
      ['Authorization: Bearer abc.def.ghi', 'abc.def.ghi'],
      ['sent Basic dXNlcjpwYXNz', 'dXNlcjpwYXNz'],
      ['id token eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhIn0.c2lnbmF0dXJlc2lnbmF0dXJl', 'eyJhbGciOiJSUzI1NiJ9'],
      ['key AKIAIOSFODNN7EXAMPLE was refused', 'AKIAIOSFODNN7EXAMPLE'],
      ['PGPASSWORD=hunter2 psql', 'hunter2'],
      // An AWS secret key: "/" cuts it into parts that look like words (a credential_process's stderr).
      ['got wJalrXUtnFEMI/K7MDENG/bPxRfiCYzPLANTEDKEY back', 'bPxRfiCYzPLANTEDKEY'],
      ['aws_secret_access_key=abcdefghij/klmnopqrst', 'klmnopqrst'],
    ];
    for (const [line, secret] of cases) expect(redactForeignText(line), line).not.toContain(secret);
  });

  it('redacts a quoted value right after a secret word, spaces and all (I8)', () => {
    expect(redactForeignText('secret "S3cr3t-Pa55"')).toBe('secret "[redacted]"');
    expect(redactForeignText('wrong password "correct horse" for alice')).toBe('wrong password "[redacted]" for alice');
    expect(redactForeignText("api key 'xyz-123' was refused")).toBe("api key '[redacted]' was refused");
    expect(redactForeignText('{"client_secret": "two words"}')).toBe('{"client_secret": "[redacted]"}');
    expect(redactForeignText('token "abc"')).toBe('token "[redacted]"');
  });

  it("redacts a URL's userinfo when it carries a password, in stderr and in the audit net (I8)", () => {
    const line = 'login to https://user:pw123@idp.example.com/auth failed';
    expect(redactForeignText(line)).toBe('login to https://[redacted]@idp.example.com/auth failed');
    expect(withoutTokens(line)).toBe('login to https://[redacted]@idp.example.com/auth failed');
    // An "@" inside the password: everything up to the last "@" before the path is userinfo.
    expect(redactForeignText('https://u:p@ss@host/x')).toBe('https://[redacted]@host/x');
  });

  it('keeps near-misses of those shapes readable (I8)', () => {
    for (const line of [
      'Error from server (Forbidden): secrets "db-creds" is forbidden',
      'no secret for profile "prod"',
      'keychain "login" is locked',
      'monkey "george"',
      'see https://idp.example.com/users/a@b',
      'https://idp.example.com:8443/users/a@b',
      'clone ssh://git@github.com/org/repo failed',
      'mail alice@example.com for access',
    ]) {
      expect(redactForeignText(line)).toBe(line);
    }
  });

  it('keeps ordinary diagnostics readable', () => {
    for (const line of [
      'error: You must be logged in to the server (Unauthorized)',
      'To sign in, use a web browser to open the page https://microsoft.com/devicelogin and enter the code FAKE1234 to authenticate.',
      'exec: "gke-gcloud-auth-plugin": executable file not found in $PATH',
      'dial tcp 10.0.12.7:443: connect: connection refused',
      'exec plugin "/tmp/kc-tTd9jM/leaky-plugin.sh" failed',
    ]) {
      expect(redactForeignText(line)).toBe(line);
    }
  });

  it('strips escapes, controls and bidi overrides before redacting, so a colour code cannot split a secret', () => {
    expect(redactForeignText('\u001b]2;pwned\u0007title \u001b[31mred\u001b[0m \u202eevil')).toBe('title red evil');
    expect(redactForeignText('token 3f9c2a7d\u001b[0m1b8e4f60a5d2')).toBe('token [redacted]');
  });

  it('quotes at most the tail of a long stderr', () => {
    expect(quoteStderr('')).toBe('');
    expect(quoteStderr(`${'word '.repeat(200)}end`).length).toBeLessThan(410);
  });
});

describe('renderErrorLine (B9)', async () => {
  const { renderErrorLine } = await import('../../../src/shared/api/errors.js');
  it('prints a message and hint from the network or argv as printable text on one line', () => {
    const line = renderErrorLine({
      message: 'no profile "x\u001b]2;PWNED\u0007\u001b[2J"\nsecond line',
      hint: 'run\u009b kubecred \u202eprofile list',
    });
    expect(line).toBe('kubecred: no profile "x" second line. Run kubecred profile list\n');
  });
});
