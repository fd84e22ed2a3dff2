import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { HttpTransport } from './api/httpTransport.js';
import { App } from './App.js';
import './styles.css';

/**
 * The headless shell's entry. The link the broker opens carries a one-time token in the
 * fragment (never sent to the server, never in a Referer); the page trades it for a session
 * cookie and removes it from the address bar, so a reload or a copied URL does not reuse it.
 */
// zod probes for eval to compile parsers; the CSP forbids eval, so say so up front.
z.config({ jitless: true });

async function boot(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  const transport = new HttpTransport();
  const token = new URLSearchParams(location.hash.slice(1)).get('token');
  if (token) {
    history.replaceState(null, '', location.pathname);
    try {
      await transport.openSession(token);
    } catch (error) {
      root.render(<p className="problem">Could not open a session: {(error as Error).message}</p>);
      return;
    }
  }
  root.render(<App transport={transport} />);
}

void boot();
