import { BlockList, isIP } from 'node:net';
import type { ProxyRoute } from './proxyTunnel.js';

/** The proxy settings a person's tools read, as read once from an environment. */
export interface ProxySettings {
  readonly httpProxy: URL | undefined;
  readonly httpsProxy: URL | undefined;
  /** NO_PROXY as written, for saying why a host went direct. */
  readonly noProxy: string;
  /** Whether a request to `url` goes through a proxy, and which. */
  proxyFor(url: URL): URL | undefined;
  /** The same, with the variable it came from, for errors and `kubecred status`. */
  routeFor(url: URL): ProxyRoute | undefined;
  /**
   * The route for a connection about to open, where the answer must be asked for (the OS's
   * settings or a PAC file, in the tray app); absent: `routeFor` is the answer.
   */
  routeNow?(url: URL): Promise<ProxyRoute | undefined>;
  /** Where the choice was written, for saying why a host went direct; absent: the environment's variables. */
  readonly settings?: ProxySettingNames;
  /**
   * The variables a child process (a wrapped plugin) gets so it chooses as the broker does;
   * absent: it inherits the environment's own.
   */
  readonly variables?: Readonly<Record<string, string>>;
}

/** The route for a connection about to open: asked for where it must be (routeNow), else routeFor's. */
export function routeForConnection(proxies: ProxySettings, url: URL): Promise<ProxyRoute | undefined> {
  return proxies.routeNow ? proxies.routeNow(url) : Promise.resolve(proxies.routeFor(url));
}

/** Why a host goes direct, in the words of where the choice is written: the variables, config.yaml's, the system's. */
export interface ProxySettingNames {
  /** No proxy for https: "no HTTPS_PROXY set". */
  readonly httpsUnset: string;
  readonly httpUnset: string;
  /** What lists the hosts that go direct: "NO_PROXY". */
  readonly noProxy: string;
}

const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443', socks5: '1080' };

/**
 * The proxy for each outbound request, decided as kubectl, Go's net/http and curl decide it:
 * HTTPS_PROXY for https, HTTP_PROXY for http (upper case first, then lower), never for
 * localhost or a loopback address, and not for a host NO_PROXY names ("*"; an IP or CIDR; a
 * domain, which covers its subdomains; ".domain" or "*.domain", its subdomains only; any of
 * them with ":port"). Kept to Go's rules case for case (test/clients/proxyoracle runs Go's own),
 * so Kubecred, its exec proxy and kubectl agree on which requests a proxy sees.
 */
export function proxySettings(env: Readonly<Record<string, string | undefined>>): ProxySettings {
  const httpSource = nameSet(env, 'HTTP_PROXY', 'http_proxy');
  const httpsSource = nameSet(env, 'HTTPS_PROXY', 'https_proxy');
  const httpProxy = parseProxy(httpSource ? env[httpSource]! : '');
  const httpsProxy = parseProxy(httpsSource ? env[httpsSource]! : '');
  const noProxySource = nameSet(env, 'NO_PROXY', 'no_proxy');
  const noProxy = noProxySource ? env[noProxySource]! : '';
  const bypass = noProxyRules(noProxy);
  const routeFor = (url: URL) => {
    const https = url.protocol === 'https:';
    const proxy = https ? httpsProxy : url.protocol === 'http:' ? httpProxy : undefined;
    if (!proxy) return undefined;
    const scheme = url.protocol.slice(0, -1);
    const port = url.port || DEFAULT_PORTS[scheme] || '';
    return bypass(url.hostname, port) ? undefined : { proxy, source: (https ? httpsSource : httpSource)! };
  };
  return { httpProxy, httpsProxy, noProxy, routeFor, proxyFor: (url) => routeFor(url)?.proxy };
}

/** The first of the names set to a value (upper case wins, as in Go). */
function nameSet(env: Readonly<Record<string, string | undefined>>, ...names: string[]): string | undefined {
  return names.find((name) => Boolean(env[name]));
}

/** A proxy as written; "proxy:3128" (no scheme) is read as http://proxy:3128, as Go does. */
function parseProxy(text: string): URL | undefined {
  if (!text) return undefined;
  const parsed = URL.canParse(text) ? new URL(text) : undefined;
  if (parsed && parsed.protocol !== ':' && parsed.host !== '') return parsed;
  return URL.canParse(`http://${text}`) ? new URL(`http://${text}`) : undefined;
}

/** Whether a host (URL hostname: brackets around IPv6) and port go direct. */
function noProxyRules(noProxy: string): (hostname: string, port: string) => boolean {
  const ipRules: Array<{ list: BlockList; port: string }> = [];
  const domainRules: Array<{ suffix: string; port: string; matchHost: boolean }> = [];
  let everything = false;
  for (const raw of noProxy.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (!entry) continue;
    if (entry === '*') {
      everything = true;
      break;
    }
    const cidr = parseCidr(entry);
    if (cidr) {
      ipRules.push({ list: cidr, port: '' });
      continue;
    }
    const { host, port } = splitHostPort(entry);
    if (!host) continue;
    const family = isIP(host);
    if (family) {
      const list = new BlockList();
      list.addAddress(host, family === 4 ? 'ipv4' : 'ipv6');
      ipRules.push({ list, port });
      continue;
    }
    const bare = host.startsWith('*.') ? host.slice(1) : host;
    domainRules.push({ suffix: bare.startsWith('.') ? bare : `.${bare}`, port, matchHost: !bare.startsWith('.') });
  }
  // Built once per settings, not per request.
  const loopback = loopbackAddresses();
  return (hostname, port) => {
    const host = hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
    if (host === 'localhost') return true;
    const family = isIP(host);
    if (family && loopback.check(host, family === 4 ? 'ipv4' : 'ipv6')) return true;
    if (everything) return true;
    if (family) {
      const type = family === 4 ? 'ipv4' : 'ipv6';
      return ipRules.some((rule) => rule.list.check(host, type) && (rule.port === '' || rule.port === port));
    }
    return domainRules.some(
      (rule) =>
        (host.endsWith(rule.suffix) || (rule.matchHost && host === rule.suffix.slice(1))) &&
        (rule.port === '' || rule.port === port),
    );
  };
}

function parseCidr(entry: string): BlockList | undefined {
  const slash = entry.indexOf('/');
  if (slash < 0) return undefined;
  const address = entry.slice(0, slash);
  const prefix = Number(entry.slice(slash + 1));
  const family = isIP(address);
  if (!family || !/^\d+$/.test(entry.slice(slash + 1)) || prefix > (family === 4 ? 32 : 128)) return undefined;
  const list = new BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

/** "host:port", "[v6]:port", or a host alone (a bare IPv6 address has colons and no port). */
function splitHostPort(entry: string): { host: string; port: string } {
  const bracketed = /^\[([^\]]*)\]:(\d*)$/.exec(entry);
  if (bracketed) return { host: bracketed[1]!, port: bracketed[2]! };
  const colon = entry.lastIndexOf(':');
  if (colon > 0 && entry.indexOf(':') === colon) return { host: entry.slice(0, colon), port: entry.slice(colon + 1) };
  return { host: entry.replace(/^\[(.*)\]$/, '$1'), port: '' };
}

function loopbackAddresses(): BlockList {
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  loopback.addSubnet('::ffff:127.0.0.0', 104, 'ipv6');
  return loopback;
}
