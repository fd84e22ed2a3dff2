import { useState } from 'react';
import type { Interaction } from '../../shared/api/status.js';
import { deviceLoginLink } from './deviceLoginLink.js';

/** Logins waiting on the user: a page to open in the browser, a code to type elsewhere, a plugin's or an enrollment's words. */
export function PendingLogins({
  interactions,
  onCancel,
}: {
  interactions: readonly Interaction[];
  onCancel: (profile: string) => void;
}) {
  if (interactions.length === 0) return null;
  return (
    <section className="pending" aria-label="pending logins">
      {interactions.map((i) => {
        switch (i.kind) {
          case 'browser':
            return (
              <BrowserLogin key={i.profile} profile={i.profile} url={i.url} onCancel={() => onCancel(i.profile)} />
            );
          case 'device':
            return <DeviceLogin key={i.profile} interaction={i} onCancel={() => onCancel(i.profile)} />;
          case 'message':
            return (
              <div className="card" data-login={i.profile} key={i.profile}>
                <h2>
                  {i.profile}: {i.title ?? 'its plugin says'}
                </h2>
                <p className="plugin-message">
                  <MessageLines text={i.text} />
                </p>
                {i.dismissable ? (
                  <button type="button" className="secondary small cancel-login" onClick={() => onCancel(i.profile)}>
                    Dismiss
                  </button>
                ) : i.cancellable ? (
                  <CancelButton onCancel={() => onCancel(i.profile)} />
                ) : null}
              </div>
            );
        }
      })}
    </section>
  );
}

/** An indented line is a command to copy (kubectl certificate approve …): it reads as code, with Copy beside it. */
function MessageLines({ text }: { text: string }) {
  return text.split('\n').map((line, n) => (
    <span key={n}>
      {n > 0 ? '\n' : null}
      {/^ {4}\S/.test(line) ? (
        <span className="message-command-row">
          <code className="message-command">{line.trim()}</code> <CopyButton text={line.trim()} />
        </span>
      ) : (
        line
      )}
    </span>
  ));
}

/** Stops the login for everyone waiting on it; the profile then shows it was cancelled. */
function CancelButton({ onCancel }: { onCancel: () => void }) {
  return (
    <button type="button" className="secondary small cancel-login" onClick={onCancel}>
      Cancel
    </button>
  );
}

/**
 * The sign-in page as a button, not a 300-character address: the address (with its one-time
 * state) stays one click away for a person who wants to read it, and Copy takes it whole.
 */
function BrowserLogin({ profile, url, onCancel }: { profile: string; url: string; onCancel: () => void }) {
  const site = siteOf(url);
  return (
    <div className="card" data-login={profile}>
      <h2>Continue in your browser</h2>
      <p>
        Signing in to <strong>{profile}</strong>
        {site ? (
          <>
            {' '}
            at <code>{site}</code>
          </>
        ) : null}
        . If no browser tab opened, open the sign-in page here.
      </p>
      <div className="button-row">
        <a href={url} target="_blank" rel="noreferrer noopener" className="button small login-link">
          Open the sign-in page
        </a>
        <CopyButton text={url} label="Copy link" />
        <CancelButton onCancel={onCancel} />
      </div>
      <details className="login-address">
        <summary>Show the address</summary>
        <code>{url}</code>
      </details>
    </div>
  );
}

/** The page's scheme, host and port: what a person checks before they type a password there. */
function siteOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

function DeviceLogin({
  interaction,
  onCancel,
}: {
  interaction: Extract<Interaction, { kind: 'device' }>;
  onCancel: () => void;
}) {
  const link = deviceLoginLink(interaction.verificationUri, interaction.verificationUriComplete);
  return (
    <div className="card" data-login={interaction.profile}>
      <h2>Enter this code</h2>
      <p>
        Signing in to <strong>{interaction.profile}</strong>. On any device, open{' '}
        {link.linkable ? (
          <a href={link.address} target="_blank" rel="noreferrer noopener">
            {link.address}
          </a>
        ) : (
          <code>{link.address}</code>
        )}{' '}
        and enter:
      </p>
      {link.otherSite !== undefined ? (
        <div className="warning" role="alert">
          The sign-in service also sent <code>{link.otherSite}</code>, an address on another site than the page above.
          Kubecred does not open it: sign in on the page above only.
        </div>
      ) : null}
      <p className="device-code" aria-label="device code">
        {interaction.userCode}
      </p>
      <div className="button-row">
        <CopyButton text={interaction.userCode} />
        <CancelButton onCancel={onCancel} />
      </div>
    </div>
  );
}

function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      // No clipboard (insecure context, denied): the text is on screen to select by hand.
    }
  };
  return (
    <button type="button" className="secondary small" onClick={() => void copy()}>
      {copied ? 'Copied' : label}
    </button>
  );
}
