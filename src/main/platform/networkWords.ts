/** The usual socket codes, in words: "ENOTFOUND" alone sends people to a search engine. */
export const NETWORK_MEANING: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing listens on that port',
  ENOTFOUND: 'the host name does not resolve',
  EAI_AGAIN: 'the host name could not be resolved now (DNS unreachable?)',
  ETIMEDOUT: 'no answer in time',
  ECONNRESET: 'the connection was cut',
  EHOSTUNREACH: 'no route to the host',
  ENETUNREACH: 'no route to the network',
  UND_ERR_CONNECT_TIMEOUT: 'no answer in time',
};

/**
 * The TLS codes Node gives when a server's chain ends at a root the client does not trust (as
 * opposed to an expired certificate or a wrong name): behind a TLS-inspecting proxy, its root.
 */
export const UNKNOWN_ROOT_CODES: ReadonlySet<string> = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
]);

/** A socket error as a person reads it: its code and, where known, what it means ("ECONNREFUSED (nothing listens on that port)"). */
export function socketErrorWords(error: NodeJS.ErrnoException): string {
  const meaning = NETWORK_MEANING[error.code ?? ''];
  return `${error.code || error.message}${meaning ? ` (${meaning})` : ''}`;
}

/** A network code inside words of its own brackets: "ENOTFOUND: the host name does not resolve". */
export function codeWithMeaning(code: string): string {
  const meaning = NETWORK_MEANING[code];
  return meaning ? `${code}: ${meaning}` : code;
}
