import { rootCertificates } from 'node:tls';
import { describe, expect, it } from 'vitest';
import { readTrustedRoots, systemRoots, type TrustStoreAccess } from '../../../src/main/platform/systemTrust.js';
import type { TrustStoreCommand } from '../../../src/main/platform/trustStoreCommand.js';
import { commonNames, exportTo, ranWith, recordedOutput } from '../../support/recordedTrustStore.js';

const DEBIAN_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';
const COMPANY_ROOT = recordedOutput('macos', 'system-keychain.pem').split(/(?<=-----END CERTIFICATE-----\n)/)[0]!;

function logged() {
  const lines: { level: string; message: string; fields: Record<string, unknown> | undefined }[] = [];
  const log = (level: string) => (message: string, fields?: Record<string, unknown>) =>
    void lines.push({ level, message, fields });
  return { lines, logger: { info: log('info'), warn: log('warn'), error: log('error') } };
}

/** A Mac's `security`, answering from the recorded listings. */
const recordedSecurity: TrustStoreCommand = async (_command, args) => {
  if (args[0] === 'trust-settings-export') {
    await exportTo(
      args,
      recordedOutput('macos', args[1] === '-d' ? 'admin-trust-settings.plist' : 'user-trust-settings.plist'),
    );
    return ranWith('');
  }
  if (args.includes('/System/Library/Keychains/SystemRootCertificates.keychain'))
    return ranWith(recordedOutput('macos', 'system-roots-keychain.pem'));
  if (args.includes('/Library/Keychains/System.keychain'))
    return ranWith(recordedOutput('macos', 'system-keychain.pem'));
  return ranWith(recordedOutput('macos', 'search-list.pem'));
};

function access(
  overrides: Partial<TrustStoreAccess>,
): TrustStoreAccess & { lines: ReturnType<typeof logged>['lines'] } {
  const { lines, logger } = logged();
  return {
    env: {},
    platform: 'darwin',
    logger,
    run: recordedSecurity,
    nodeSystemStore: () => undefined,
    read: () => {
      throw Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    },
    lines,
    ...overrides,
  };
}

describe('the roots every provider trusts: Node’s, and the system’s', () => {
  it("on Linux, adds the distribution's bundle (SSL_CERT_FILE first) and runs nothing", async () => {
    const files: Record<string, string> = { [DEBIAN_BUNDLE]: COMPANY_ROOT, '/opt/corp.pem': 'no certificate here' };
    const read = (file: string) => {
      if (files[file] === undefined) throw new Error('ENOENT');
      return files[file];
    };
    expect(systemRoots({}, 'linux', read)).toEqual([...rootCertificates, COMPANY_ROOT]);
    // An SSL_CERT_FILE without a certificate in it is passed over, as before.
    expect(systemRoots({ SSL_CERT_FILE: '/opt/corp.pem' }, 'linux', read)).toEqual([...rootCertificates, COMPANY_ROOT]);
    expect(systemRoots({}, 'linux', () => 'x'.repeat(10))).toEqual([...rootCertificates]);
    const ran: string[] = [];
    const onLinux = access({ platform: 'linux', read, run: async (command) => (ran.push(command), ranWith('')) });
    expect(await readTrustedRoots(onLinux)).toEqual([...rootCertificates, COMPANY_ROOT]);
    expect(ran).toEqual([]);
    expect(onLinux.lines).toEqual([]);
  });

  it("on macOS, adds the keychains' TLS roots to Node's and says so in the log", async () => {
    const mac = access({});
    const roots = await readTrustedRoots(mac);
    expect(roots.slice(0, rootCertificates.length)).toEqual([...rootCertificates]);
    expect(commonNames(roots.slice(rootCertificates.length))).toEqual([
      'Ada Dev Root',
      'Apple Root CA Fixture',
      'Example Corp TLS Inspection Root',
    ]);
    expect(mac.lines).toEqual([
      {
        level: 'info',
        message: "trusting the OS trust store as well as Node's roots",
        fields: { platform: 'darwin', source: 'security', roots: 3 },
      },
    ]);
  });

  it("prefers the OS store as this Node reads it itself (the Electron app's Node 22), running nothing", async () => {
    const ran: string[] = [];
    const withNodeReader = access({
      platform: 'win32',
      nodeSystemStore: () => [COMPANY_ROOT],
      run: async (command) => (ran.push(command), ranWith('')),
    });
    expect(await readTrustedRoots(withNodeReader)).toEqual([...rootCertificates, COMPANY_ROOT]);
    expect(ran).toEqual([]);
    expect(withNodeReader.lines[0]?.fields).toMatchObject({ source: 'node', roots: 1 });
  });

  it("falls back to the OS's tools when this Node's own reader throws", async () => {
    const mac = access({
      nodeSystemStore: () => {
        throw new Error('SecItemCopyMatching failed');
      },
    });
    expect((await readTrustedRoots(mac)).length).toBe(rootCertificates.length + 3);
    expect(mac.lines[0]?.fields).toMatchObject({ source: 'security' });
  });

  it("gives Node's roots and a warning naming the cause when the tool fails, prints junk or hangs past the deadline", async () => {
    const failing = access({
      platform: 'win32',
      run: async () => ranWith('', { exitCode: 1, stderr: 'Access is denied.' }),
    });
    const junk = access({ platform: 'win32', run: async () => ranWith('Get-ChildItem : Cannot find drive.\r\n') });
    const hanging = access({ platform: 'darwin', run: () => new Promise(() => {}), deadlineMs: 50 });
    const throwing = access({
      run: async () => {
        throw new Error('spawn EACCES');
      },
    });
    for (const [broken, reason] of [
      [failing, 'PowerShell failed (exit 1): Access is denied.'],
      [junk, 'PowerShell did not finish listing the certificate stores'],
      [hanging, 'no answer within 50 ms'],
      [throwing, 'spawn EACCES'],
    ] as const) {
      expect(await readTrustedRoots(broken)).toEqual([...rootCertificates]);
      expect(broken.lines).toEqual([
        {
          level: 'warn',
          message:
            "the OS trust store could not be read: trusting Node's roots (and SSL_CERT_FILE, a profile's caFile) only",
          fields: { platform: broken.platform, reason },
        },
      ]);
    }
  });

  it('keeps SSL_CERT_FILE on macOS and Windows, with the OS roots after it', async () => {
    const mac = access({ env: { SSL_CERT_FILE: '/opt/corp.pem' }, read: () => COMPANY_ROOT });
    const roots = await readTrustedRoots(mac);
    expect(roots.slice(0, rootCertificates.length + 1)).toEqual([...rootCertificates, COMPANY_ROOT]);
    expect(roots.length).toBe(rootCertificates.length + 4);
  });
});
