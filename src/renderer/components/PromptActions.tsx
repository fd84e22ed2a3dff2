import { useEffect, useState, type ReactNode } from 'react';

/** Seconds until an ISO time, never below 0; null for a time that cannot be read. */
export function secondsLeft(expiresAt: string, now: number): number | null {
  const ms = Date.parse(expiresAt) - now;
  return Number.isNaN(ms) ? null : Math.max(0, Math.ceil(ms / 1000));
}

/** "1:59", "0:07": a countdown reads as a clock, so it visibly moves every second. */
export function formatCountdown(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

/** The time now, moving once a second while a prompt is open. */
function useSecondTick(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/**
 * When the broker stops waiting (it then cancels, or denies an approval): the prompt says so
 * and counts down. A timer role is not live, so a screen reader is not told every second.
 */
export function Countdown({ expiresAt, ending }: { expiresAt: string; ending: string }) {
  const now = useSecondTick();
  const seconds = secondsLeft(expiresAt, now);
  if (seconds === null) return null;
  const soon = seconds <= 15;
  return (
    <p
      className={`prompt-countdown${soon ? ' soon' : ''}`}
      role="timer"
      aria-label={`${ending} in ${formatCountdown(seconds)}`}
    >
      <svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
        <circle cx="8" cy="9" r="6" fill="none" stroke="currentColor" strokeWidth="1.6" />
        <path
          d="M8 5.5V9l2.2 1.6M6.5 1.5h3"
          fill="none"
          stroke="currentColor"
          strokeWidth="1.6"
          strokeLinecap="round"
        />
      </svg>
      <span>
        {seconds > 0 ? (
          <>
            {ending} in <span className="prompt-countdown-clock">{formatCountdown(seconds)}</span>
          </>
        ) : (
          'Timed out'
        )}
      </span>
    </p>
  );
}

/**
 * The line every prompt ends with: when it times out, then its own action and Cancel.
 * `expiresAt` and `ending` are optional so older callers keep working.
 */
export function PromptActions({
  label,
  disabled,
  onCancel,
  expiresAt,
  ending = 'Times out',
  children,
}: {
  label: string;
  disabled: boolean;
  onCancel: () => void;
  expiresAt?: string;
  ending?: string;
  children?: ReactNode;
}) {
  return (
    <div className="prompt-footer">
      {expiresAt ? <Countdown expiresAt={expiresAt} ending={ending} /> : <span />}
      <div className="actions">
        {children}
        <button type="submit" disabled={disabled}>
          {label}
        </button>
        <button type="button" className="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/** Ids the dialog points at (aria-labelledby, aria-describedby): the heading and the sentence under it. */
export interface PromptIds {
  readonly title: string;
  readonly description: string;
}

type IconKind = 'pin' | 'passphrase' | 'approval' | 'form';

/** A small glyph per kind of question; decorative, the heading says it in words. */
export function PromptIcon({ kind }: { kind: IconKind }) {
  const paths: Record<IconKind, ReactNode> = {
    pin: (
      <>
        <rect x="3" y="9" width="14" height="9" rx="2" fill="none" />
        <path d="M6.5 9V6.5a3.5 3.5 0 0 1 7 0V9" fill="none" />
        <circle cx="7" cy="13.5" r="0.9" />
        <circle cx="10" cy="13.5" r="0.9" />
        <circle cx="13" cy="13.5" r="0.9" />
      </>
    ),
    passphrase: (
      <>
        <circle cx="7" cy="10" r="3.5" fill="none" />
        <path d="M10.5 10H18M15 10v3M17.5 10v2.5" fill="none" />
      </>
    ),
    approval: (
      <path d="M10 2 3.5 4.5v5c0 4 2.8 7 6.5 8.5 3.7-1.5 6.5-4.5 6.5-8.5v-5L10 2Zm-2.6 8.2 2 2 3.6-4" fill="none" />
    ),
    form: (
      <>
        <circle cx="10" cy="7" r="3.2" fill="none" />
        <path d="M3.5 17.5c.8-3.2 3.4-5 6.5-5s5.7 1.8 6.5 5" fill="none" />
      </>
    ),
  };
  return (
    <span className={`prompt-icon prompt-icon-${kind}`} aria-hidden="true">
      <svg
        viewBox="0 0 20 20"
        width="20"
        height="20"
        focusable="false"
        fill="currentColor"
        stroke="currentColor"
        strokeWidth="1.6"
        strokeLinecap="round"
        strokeLinejoin="round"
      >
        {paths[kind]}
      </svg>
    </span>
  );
}

/** The heading of a prompt: its glyph and its question, named for the dialog. */
export function PromptHeading({ kind, ids, children }: { kind: IconKind; ids: PromptIds; children: ReactNode }) {
  return (
    <div className="prompt-heading">
      <PromptIcon kind={kind} />
      <h2 id={ids.title}>{children}</h2>
    </div>
  );
}
