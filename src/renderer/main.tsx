import { createRoot } from 'react-dom/client';
import { z } from 'zod';
import { MAIN_PAGE_ROUTE, promptPageRoute } from '../shared/api/pageRoutes.js';
import { httpTransport } from './api/httpTransport.js';
import { isPageRoute } from './route.js';
import { App } from './App.js';
import { PromptWindow } from './components/PromptWindow.js';
import './styles.css';
import { MayAllow } from './components/approverContext.js';

/**
 * The page's entry, for a browser tab and a tray app window alike. A tab's link carries a
 * one-time token in the fragment (never sent to the server, never in a Referer); the page
 * trades it for a session secret, keeps that in this tab's sessionStorage and removes the
 * token from the address bar, so a reload keeps the session and a copied URL grants nothing.
 */
// zod probes for eval to compile parsers; the CSP forbids eval, so say so up front.
z.config({ jitless: true });

function NeedsLink({ why }: { why: string }) {
  return (
    <main className="needs-link">
      <h1>Kubecred</h1>
      <p className="problem">{why}</p>
      <p>
        Run <code>kubecred ui</code> in a terminal on this machine: it opens a fresh link (
        <code>kubecred ui --print</code> prints it instead).
      </p>
    </main>
  );
}

async function boot(): Promise<void> {
  const root = createRoot(document.getElementById('root')!);
  const transport = httpTransport(sessionStorage);
  // #/activity and the like are the main window's sections, not a link's parameters.
  const fragment = new URLSearchParams(isPageRoute(location.hash) ? '' : location.hash.slice(1));
  const token = fragment.get('token');
  // A prompt window (#prompt=<id>) shows that one question; the token leaves the address bar, the route stays.
  const promptId = fragment.get('prompt');
  if (token) {
    history.replaceState(null, '', promptId ? promptPageRoute(promptId) : MAIN_PAGE_ROUTE);
    try {
      await transport.openSession(token);
    } catch (error) {
      root.render(<NeedsLink why={`This link cannot open Kubecred: ${(error as Error).message}.`} />);
      return;
    }
  }
  // A tray app window has no session of its own: its shell adds one to each request. Ask once.
  if (
    !transport.hasSession &&
    !(await transport.state().then(
      () => true,
      () => false,
    ))
  ) {
    root.render(<NeedsLink why="This page has no session with the Kubecred broker." />);
    return;
  }
  root.render(
    <MayAllow.Provider value={transport.mayAllow}>
      {promptId ? (
        <PromptWindow transport={transport} id={promptId} close={() => window.close()} />
      ) : (
        <App transport={transport} />
      )}
    </MayAllow.Provider>,
  );
}

// A link pasted into a tab already on this page only changes the fragment, which reloads
// nothing: start over, so its token is traded like any other.
window.addEventListener('hashchange', () => {
  if (!isPageRoute(location.hash) && new URLSearchParams(location.hash.slice(1)).has('token')) location.reload();
});

void boot();
