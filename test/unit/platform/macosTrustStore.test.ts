import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readMacosRoots } from '../../../src/main/platform/macosTrustStore.js';
import type { TrustStoreCommand } from '../../../src/main/platform/trustStoreCommand.js';
import type { BoundedResult } from '../../../src/main/platform/boundedCommand.js';
import { commonNames, exportTo, ranWith, recordedOutput } from '../../support/recordedTrustStore.js';

const NO_SETTINGS = ranWith('', {
  exitCode: 1,
  stderr: 'SecTrustSettingsCreateExternalRepresentation: No Trust Settings were found.',
});

/** `security` as a Mac with a company's inspecting root in the System keychain answers it. */
function recordedMac(overrides: { [what: string]: (args: readonly string[]) => Promise<BoundedResult> } = {}): {
  run: TrustStoreCommand;
  calls: string[][];
} {
  const calls: string[][] = [];
  const answers: { [what: string]: (args: readonly string[]) => Promise<BoundedResult> } = {
    systemRoots: async () => ranWith(recordedOutput('macos', 'system-roots-keychain.pem')),
    systemKeychain: async () => ranWith(recordedOutput('macos', 'system-keychain.pem')),
    searchList: async () => ranWith(recordedOutput('macos', 'search-list.pem')),
    admin: async (args) => {
      await exportTo(args, recordedOutput('macos', 'admin-trust-settings.plist'));
      return ranWith('');
    },
    user: async (args) => {
      await exportTo(args, recordedOutput('macos', 'user-trust-settings.plist'));
      return ranWith('');
    },
    ...overrides,
  };
  const run: TrustStoreCommand = (command, args) => {
    calls.push([command, ...args]);
    if (args[0] === 'trust-settings-export') return answers[args[1] === '-d' ? 'admin' : 'user']!(args);
    if (args.includes('/System/Library/Keychains/SystemRootCertificates.keychain')) return answers.systemRoots!(args);
    if (args.includes('/Library/Keychains/System.keychain')) return answers.systemKeychain!(args);
    return answers.searchList!(args);
  };
  return { run, calls };
}

describe("macOS's trusted roots, read with /usr/bin/security (recorded outputs, never a real Mac)", () => {
  it("trusts Apple's roots less the denied one, plus the keychains' certificates trusted for TLS", async () => {
    const { run, calls } = recordedMac();
    const reading = await readMacosRoots(run);
    if (!('roots' in reading)) throw new Error(reading.failure);
    expect(commonNames(reading.roots)).toEqual([
      'Ada Dev Root', // user: Always Trust
      'Apple Root CA Fixture',
      'Example Corp TLS Inspection Root', // admin: SSL, the user's Unspecified passing on; listed twice, kept once
    ]);
    expect(reading.notes).toEqual([]);
    expect(calls.every(([command]) => command === '/usr/bin/security')).toBe(true);
    expect(calls.filter((call) => call[1] === 'trust-settings-export').map((call) => call.slice(2, -1))).toEqual(
      expect.arrayContaining([['-d'], []]),
    );
  });

  it('reads a domain without trust settings as trusting nothing more, and no temporary plist is left behind', async () => {
    const written: string[] = [];
    const { run } = recordedMac({
      admin: async (args) => {
        written.push(args[args.length - 1]!);
        return NO_SETTINGS;
      },
      user: async () => NO_SETTINGS,
    });
    const reading = await readMacosRoots(run);
    if (!('roots' in reading)) throw new Error(reading.failure);
    expect(commonNames(reading.roots)).toEqual(['Apple Root CA Fixture', 'Distrusted Root Fixture']);
    expect(reading.notes).toEqual([]);
    expect(written).toHaveLength(1);
    expect(existsSync(written[0]!)).toBe(false);
  });

  it("keeps Apple's roots, with a note, when the user's keychains or trust settings cannot be read", async () => {
    const { run } = recordedMac({
      searchList: async () =>
        ranWith('', {
          exitCode: 50,
          stderr: 'security: SecKeychainSearchCopyNext: The specified keychain could not be found.',
        }),
      user: async (args) => {
        await exportTo(args, '<plist version="1.0"><dict><key>trustList</key><dict><key>AB</key>');
        return ranWith('');
      },
    });
    const reading = await readMacosRoots(run);
    if (!('roots' in reading)) throw new Error(reading.failure);
    expect(commonNames(reading.roots)).toEqual(['Apple Root CA Fixture', 'Example Corp TLS Inspection Root']);
    expect(reading.notes).toEqual([
      'security find-certificate (search list) failed (exit 50): security: SecKeychainSearchCopyNext: The specified keychain could not be found.',
      expect.stringMatching(/^the user trust settings could not be read: the plist/),
    ]);
  });

  it('fails, saying why, when the system roots keychain cannot be listed or lists nothing readable', async () => {
    const missing = recordedMac({ systemRoots: async () => ranWith('', { notFound: true }) });
    expect(await readMacosRoots(missing.run)).toEqual({
      failure: 'security find-certificate /System/Library/Keychains/SystemRootCertificates.keychain was not found',
    });
    const junk = recordedMac({
      systemRoots: async () =>
        ranWith(
          'keychain: "/System/Library/Keychains/SystemRootCertificates.keychain"\n-----BEGIN CERTIFICATE-----\nnot base64 at all\n-----END CERTIFICATE-----\n',
        ),
    });
    expect(await readMacosRoots(junk.run)).toEqual({
      failure: 'security listed no certificate in /System/Library/Keychains/SystemRootCertificates.keychain',
    });
    const hung = recordedMac({
      systemRoots: async () => ranWith('', { timedOut: true, exitCode: undefined, signal: 'SIGKILL' }),
    });
    expect(await readMacosRoots(hung.run)).toEqual({
      failure:
        'security find-certificate /System/Library/Keychains/SystemRootCertificates.keychain did not answer in time',
    });
  });
});
