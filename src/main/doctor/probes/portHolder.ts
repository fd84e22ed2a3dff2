import tls from 'node:tls';
import type { PortHolder } from '../checks/proxyPortsCheck.js';

/**
 * Looks at what answers on 127.0.0.1:`port`: kubecred-proxy shows a certificate from the
 * Kubecred local CA. Nothing is sent but a TLS hello; no certificate of ours is offered.
 */
export function portHolder(port: number, timeoutMs: number): Promise<PortHolder> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (holder: PortHolder) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(holder);
    };
    // Only reading who the server says it is: the check trusts nothing it is told.
    const socket = tls.connect(
      { host: '127.0.0.1', port, servername: 'localhost', rejectUnauthorized: false, timeout: timeoutMs },
      () => {
        const issuer = socket.getPeerCertificate()?.issuer?.CN;
        done(issuer === 'Kubecred local CA' ? 'kubecred-proxy' : 'another program');
      },
    );
    socket.on('error', (error: NodeJS.ErrnoException) =>
      done(error.code === 'ECONNREFUSED' ? 'free' : 'another program'),
    );
    socket.on('timeout', () => done('another program'));
  });
}
