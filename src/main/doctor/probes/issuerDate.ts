import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { rootCertificates } from 'node:tls';
import { secondsText } from '../seconds.js';

/**
 * GETs the URL once and returns its Date header. Any answer will do, even an error page: only
 * the server's clock is wanted. A private issuer's CA (the profile's caFile) is trusted on top of
 * the system roots, as the OIDC provider does.
 */
export async function issuerDate(
  url: string,
  caFile: string | undefined,
  timeoutMs: number,
): Promise<string | undefined> {
  const ca = caFile ? [...rootCertificates, await readFile(caFile, 'utf8')] : undefined;
  const target = new URL(url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(target, { method: 'GET', ...(ca ? { ca } : {}), timeout: timeoutMs }, (res) => {
      res.resume();
      resolve(res.headers.date);
    });
    req.once('timeout', () => req.destroy(new Error(`no answer within ${secondsText(timeoutMs)}`)));
    req.once('error', reject);
    req.end();
  });
}
