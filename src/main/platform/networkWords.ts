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
