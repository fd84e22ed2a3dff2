/** What one macOS trust-settings domain (the user's, the admin's) says about a certificate, for TLS. */
export type TrustDecision = 'trusted' | 'denied';

/** SSL's policy OID (1.2.840.113635.100.1.3) as `security trust-settings-export` writes it: its DER value bytes. */
const SSL_POLICY_OID = Buffer.from([0x2a, 0x86, 0x48, 0x86, 0xf7, 0x63, 0x64, 0x01, 0x03]);
const TRUST_ROOT = 1;
const TRUST_AS_ROOT = 2;
const DENY = 3;

/**
 * The TLS decision of each certificate in a trust-settings plist (`security trust-settings-export`),
 * keyed by its SHA-1 thumbprint. As macOS evaluates them: an empty list of settings is "Always
 * Trust" for every use; otherwise the first setting that applies to any server for TLS decides
 * (one without a policy or with SSL's, naming no single host or application), Unspecified
 * passing on to the next. A certificate none of whose settings decide is left out. Throws when
 * the text is not such a plist.
 */
export function trustDecisions(plistXml: string): Map<string, TrustDecision> {
  const root = parsePlist(plistXml);
  const trustList = isDict(root) ? root.get('trustList') : undefined;
  if (!isDict(trustList)) throw new Error('not a trust-settings plist (no trustList)');
  const decisions = new Map<string, TrustDecision>();
  for (const [sha1, entry] of trustList) {
    const settings = isDict(entry) ? entry.get('trustSettings') : undefined;
    const decision = Array.isArray(settings) ? decide(settings) : undefined;
    if (decision) decisions.set(sha1.toUpperCase(), decision);
  }
  return decisions;
}

function decide(settings: readonly PlistValue[]): TrustDecision | undefined {
  if (settings.length === 0) return 'trusted';
  for (const setting of settings) {
    if (!isDict(setting) || !appliesToTls(setting)) continue;
    const result = setting.get('kSecTrustSettingsResult') ?? TRUST_ROOT;
    if (result === TRUST_ROOT || result === TRUST_AS_ROOT) return 'trusted';
    if (result === DENY) return 'denied';
  }
  return undefined;
}

function appliesToTls(setting: PlistDict): boolean {
  // Trust for one host name or one application is not trust for every server the broker calls.
  if (setting.has('kSecTrustSettingsPolicyString') || setting.has('kSecTrustSettingsApplication')) return false;
  const policy = setting.get('kSecTrustSettingsPolicy');
  if (policy === undefined) return true;
  return (
    (Buffer.isBuffer(policy) && policy.equals(SSL_POLICY_OID)) ||
    setting.get('kSecTrustSettingsPolicyName') === 'sslServer'
  );
}

type PlistValue = string | number | boolean | Buffer | PlistValue[] | PlistDict;
type PlistDict = Map<string, PlistValue>;

function isDict(value: PlistValue | undefined): value is PlistDict {
  return value instanceof Map;
}

const TOKEN = /<\?[^>]*\?>|<!--[\s\S]*?-->|<![^>]*>|<(\/?)([A-Za-z]+)[^>]*?(\/?)>|([^<]+)/g;

interface Token {
  readonly closing: boolean;
  readonly name: string;
  readonly empty: boolean;
  readonly text: string;
}

/** An XML property list's values (dict, array, string, data, integer, real, date, true, false). */
function parsePlist(xml: string): PlistValue {
  const tokens: Token[] = [];
  for (const match of xml.matchAll(TOKEN)) {
    if (match[2]) tokens.push({ closing: match[1] === '/', name: match[2], empty: match[3] === '/', text: '' });
    else if (match[4]?.trim()) tokens.push({ closing: false, name: '#text', empty: true, text: match[4] });
  }
  let at = 0;
  const next = (): Token => {
    const token = tokens[at++];
    if (!token) throw new Error('the plist ends early');
    return token;
  };
  const expectClose = (name: string) => {
    const token = next();
    if (!token.closing || token.name !== name) throw new Error(`the plist's <${name}> is not closed`);
  };
  const textOf = (name: string): string => {
    const token = tokens[at];
    if (token?.name === '#text') at++;
    expectClose(name);
    return token?.name === '#text' ? unescapeXml(token.text) : '';
  };
  const value = (): PlistValue => {
    const open = next();
    if (open.closing || open.name === '#text') throw new Error('the plist has a value out of place');
    switch (open.name) {
      case 'dict': {
        const dict: PlistDict = new Map();
        if (open.empty) return dict;
        while (!(tokens[at]?.closing && tokens[at]?.name === 'dict')) {
          const key = next();
          if (key.name !== 'key') throw new Error('the plist has a dict entry without a key');
          dict.set(textOf('key'), value());
        }
        expectClose('dict');
        return dict;
      }
      case 'array': {
        const items: PlistValue[] = [];
        if (open.empty) return items;
        while (!(tokens[at]?.closing && tokens[at]?.name === 'array')) items.push(value());
        expectClose('array');
        return items;
      }
      case 'true':
      case 'false':
        if (!open.empty) expectClose(open.name);
        return open.name === 'true';
      case 'string':
      case 'date':
        return open.empty ? '' : textOf(open.name);
      case 'data':
        return Buffer.from(open.empty ? '' : textOf('data').replace(/\s+/g, ''), 'base64');
      case 'integer':
      case 'real': {
        const number = Number(textOf(open.name).trim());
        if (!Number.isFinite(number)) throw new Error(`the plist has a ${open.name} that is not a number`);
        return number;
      }
      case 'plist': {
        const inner = value();
        expectClose('plist');
        return inner;
      }
      default:
        throw new Error(`the plist has an unknown element <${open.name}>`);
    }
  };
  return value();
}

function unescapeXml(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}
