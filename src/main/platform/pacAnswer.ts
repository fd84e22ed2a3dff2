/**
 * The first way Chromium's proxy resolver answers that Kubecred can take, from its PAC-style
 * list ("PROXY proxy.corp:3128; DIRECT"): a proxy URL, or undefined for DIRECT. SOCKS and
 * QUIC entries are passed over (the broker tunnels through HTTP(S) proxies only); `skipped`
 * names them for the log. An answer with nothing usable is DIRECT, as Chromium falls back.
 */
export function firstUsableProxy(answer: string): { proxy: URL | undefined; skipped: string[] } {
  const skipped: string[] = [];
  for (const entry of answer.split(';')) {
    const [kind = '', where = ''] = entry.trim().split(/\s+/, 2);
    const scheme = USABLE[kind.toUpperCase()];
    if (kind.toUpperCase() === 'DIRECT') return { proxy: undefined, skipped };
    if (scheme && where && URL.canParse(`${scheme}://${where}`))
      return { proxy: new URL(`${scheme}://${where}`), skipped };
    if (kind) skipped.push(kind.toUpperCase());
  }
  return { proxy: undefined, skipped };
}

const USABLE: Readonly<Record<string, string>> = { PROXY: 'http', HTTPS: 'https' };
