import { describe, expect, it } from 'vitest';
import { trustDecisions } from '../../../src/main/platform/macTrustSettings.js';
import { recordedOutput } from '../../support/recordedTrustStore.js';

const CORP_TLS_ROOT = 'DD42827B04F94031309E0AEA71D0E417CA974434';
const CORP_EMAIL_ROOT = 'F482A3D313F9D312E48E026E9FB0B837A27A48DD';
const DISTRUSTED_ROOT = '88D18E5737DBE2D73A7F7DBE5701EA79AD48018C';
const DEV_ROOT = '0CDDB892A0F1AE53DE01F19B68561D0A0E5A3291';
const SINGLE_HOST_ROOT = '85EF5C9732CD212ADB70B759A5CC429C4B9FBD84';

function plistWith(trustSettings: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<plist version="1.0"><dict><key>trustList</key><dict>
<key>${DEV_ROOT.toLowerCase()}</key><dict><key>trustSettings</key>${trustSettings}</dict>
</dict><key>trustVersion</key><integer>1</integer></dict></plist>`;
}

describe("macOS trust settings (security trust-settings-export's plist), read for TLS", () => {
  it("trusts a root set to Always Trust for SSL, and denies one set to Never Trust, in the admin's export", () => {
    const admin = trustDecisions(recordedOutput('macos', 'admin-trust-settings.plist'));
    expect(admin.get(CORP_TLS_ROOT)).toBe('trusted');
    expect(admin.get(DISTRUSTED_ROOT)).toBe('denied');
    // Trusted for S/MIME only: nothing said about TLS.
    expect(admin.has(CORP_EMAIL_ROOT)).toBe(false);
    expect(admin.size).toBe(2);
  });

  it("reads an empty settings list as Always Trust for everything; one host's trust or Unspecified decides nothing", () => {
    const user = trustDecisions(recordedOutput('macos', 'user-trust-settings.plist'));
    expect(user.get(DEV_ROOT)).toBe('trusted');
    expect(user.has(SINGLE_HOST_ROOT)).toBe(false);
    expect(user.has(CORP_TLS_ROOT)).toBe(false);
  });

  it('lets the first setting that applies decide, past Unspecified ones, and keys thumbprints in upper case', () => {
    const decisions = trustDecisions(
      plistWith(
        '<array><dict><key>kSecTrustSettingsResult</key><integer>4</integer></dict>' +
          '<dict><key>kSecTrustSettingsResult</key><integer>3</integer></dict>' +
          '<dict><key>kSecTrustSettingsResult</key><integer>1</integer></dict></array>',
      ),
    );
    expect(decisions.get(DEV_ROOT)).toBe('denied');
  });

  it('takes a setting with no result as Trust Root, as macOS does, and ignores one for a single application', () => {
    expect(trustDecisions(plistWith('<array><dict/></array>')).get(DEV_ROOT)).toBe('trusted');
    const forOneApp = plistWith(
      '<array><dict><key>kSecTrustSettingsApplication</key><data>AAEC</data><key>kSecTrustSettingsResult</key><integer>1</integer></dict></array>',
    );
    expect(trustDecisions(forOneApp).has(DEV_ROOT)).toBe(false);
  });

  it('refuses what is not a trust-settings plist', () => {
    expect(() =>
      trustDecisions('SecTrustSettingsCreateExternalRepresentation: No Trust Settings were found.'),
    ).toThrow();
    expect(() =>
      trustDecisions('<plist version="1.0"><dict><key>other</key><string>x</string></dict></plist>'),
    ).toThrow(/no trustList/);
    expect(() => trustDecisions('<plist version="1.0"><dict><key>trustList</key><dict>')).toThrow(/ends early/);
  });
});
