/**
 * Image matchers as the kubelet's credential providers use them (KEP-2133): a matcher is a
 * host (globs allowed, one DNS label per glob), an optional port and an optional path.
 * An image matches when the hosts have the same number of labels and each label matches,
 * the ports are equal (a matcher without a port matches only images without one), and the
 * matcher's path is a string prefix of the image's path. Pure: shared by the broker, the
 * config schema and the tests.
 */

export interface ImageLocation {
  readonly host: string;
  readonly port: string;
  /** Everything after the host, with its leading "/", or "" when there is none. */
  readonly path: string;
}

const DOCKER_HUB = 'docker.io';

/**
 * Where an image (or a matcher, or a docker server URL) points. A first component without
 * ".", ":" and other than "localhost" is a Docker Hub repository, as every container
 * runtime reads it: "nginx" is docker.io/library/nginx, "bitnami/redis" docker.io/bitnami/redis.
 */
export function imageLocation(reference: string): ImageLocation | undefined {
  const text = withoutScheme(reference.trim());
  if (!text || /\s/.test(text)) return undefined;
  const slash = text.indexOf('/');
  const first = slash === -1 ? text : text.slice(0, slash);
  const rest = slash === -1 ? '' : text.slice(slash);
  const hostPort = splitHostPort(first);
  if (slash === -1) {
    // Alone, "registry.io:5000" is a registry (a matcher, a server URL) but "nginx:1.25" an image.
    const isRegistry =
      hostPort !== undefined && (hostPort.host.includes('.') || hostPort.host === 'localhost' || isIpv6(hostPort.host));
    return isRegistry ? { ...hostPort, path: '' } : { host: DOCKER_HUB, port: '', path: `/library/${text}` };
  }
  if (!looksLikeHost(first)) return { host: DOCKER_HUB, port: '', path: `/${text}` };
  if (!hostPort) return undefined;
  return { ...hostPort, path: rest };
}

/** Whether a matcher (from config) is well formed: a host, maybe a port, maybe a path, no globs outside the host. */
export function isValidMatcher(matcher: string): boolean {
  const text = withoutScheme(matcher.trim());
  const slash = text.indexOf('/');
  const first = slash === -1 ? text : text.slice(0, slash);
  const hostPort = splitHostPort(first);
  if (!hostPort || !looksLikeHost(first) || /[\s*?[\]]/.test(slash === -1 ? '' : text.slice(slash))) return false;
  if (isIpv6(hostPort.host)) return true;
  return hostPort.host.split('.').every((label) => label.length > 0 && globToRegExp(label) !== undefined);
}

export function matchesImage(matcher: string, image: string): boolean {
  const glob = imageLocation(matcher);
  const target = imageLocation(image);
  if (!glob || !target) return false;
  if (glob.port !== target.port) return false;
  // An IPv6 literal has no labels to glob: it matches itself only.
  if (isIpv6(glob.host) || isIpv6(target.host)) return glob.host === target.host && target.path.startsWith(glob.path);
  const globLabels = glob.host.split('.');
  const targetLabels = target.host.split('.');
  if (globLabels.length !== targetLabels.length) return false;
  const labelsMatch = globLabels.every((label, index) => globToRegExp(label)?.test(targetLabels[index] ?? '') ?? false);
  return labelsMatch && target.path.startsWith(glob.path);
}

function withoutScheme(text: string): string {
  return text.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
}

function isIpv6(host: string): boolean {
  return host.startsWith('[') && host.includes(':');
}

function looksLikeHost(component: string): boolean {
  return component === 'localhost' || component.includes('.') || component.includes(':') || component.startsWith('[');
}

function splitHostPort(text: string): { host: string; port: string } | undefined {
  const bracketed = /^\[([0-9a-fA-F.]*:[0-9a-fA-F:.]*)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return { host: `[${bracketed[1]?.toLowerCase()}]`, port: bracketed[2] ?? '' };
  const plain = /^([^:]+)(?::(\d{1,5}))?$/.exec(text);
  if (!plain) return undefined;
  return { host: plain[1]?.toLowerCase() ?? '', port: plain[2] ?? '' };
}

/**
 * One DNS label's glob: "*" and "?" never cross a "." (labels are matched one by one), and
 * "[a-z]" / "[^0-9]" classes, as Go's filepath.Match reads them. Undefined when malformed.
 */
function globToRegExp(label: string): RegExp | undefined {
  let source = '';
  for (let i = 0; i < label.length; i++) {
    const char = label[i] ?? '';
    if (char === '*') source += '[^.]*';
    else if (char === '?') source += '[^.]';
    else if (char === '[') {
      const end = label.indexOf(']', i + 2);
      if (end === -1) return undefined;
      const body = label.slice(i + 1, end);
      const negated = body.startsWith('^') || body.startsWith('!');
      const members = (negated ? body.slice(1) : body).replace(/[\\\]]/g, '\\$&');
      if (!members || !/^[a-z0-9\\\]-]+$/i.test(members)) return undefined;
      source += `[${negated ? '^' : ''}${members}]`;
      i = end;
    } else if (/[a-z0-9_-]/i.test(char)) source += char;
    else return undefined;
  }
  return new RegExp(`^${source}$`, 'i');
}

/**
 * For docker credential helpers, which ask per registry ("127.0.0.1:5000",
 * "https://index.docker.io/v1/"), not per image: host and port must match, and the
 * matcher's path is ignored (the server URL's path is an API version, not a repository).
 */
export function matchesRegistryServer(matcher: string, serverUrl: string): boolean {
  const glob = imageLocation(matcher);
  const server = imageLocation(serverUrl);
  if (!glob || !server) return false;
  const host = server.host === 'index.docker.io' || server.host === 'registry-1.docker.io' ? DOCKER_HUB : server.host;
  return matchesImage(
    `${glob.host}${glob.port ? `:${glob.port}` : ''}`,
    `${host}${server.port ? `:${server.port}` : ''}/`,
  );
}
