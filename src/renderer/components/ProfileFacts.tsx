import type { CertificateFacts } from '../../shared/api/webUiApi.js';
import type { ProfileFact } from '../profileFacts.js';
import { auditTime } from './AuditLogView.js';

/** One line of the facts list; a command, URL or ARN shows as code, to be copied as is. */
export function Fact({ fact }: { fact: ProfileFact }) {
  return (
    <>
      <dt>{fact.label}</dt>
      <dd data-fact={fact.label}>{fact.code ? <code>{fact.value}</code> : fact.value}</dd>
    </>
  );
}

// A certificate this close to its end is worth a warning: renewing one takes a request to someone.
const RENEW_WITHIN_DAYS = 14;

/** "CN=alice, O=dev · expires 2027-01-01 12:00:00 (in 35 days)", amber near the end, red past it. */
export function CertificateFact({ facts, now }: { facts: CertificateFacts; now: number }) {
  const days = Math.floor((Date.parse(facts.notAfter) - now) / 86_400_000);
  const tone = days < 0 ? 'error-text' : days < RENEW_WITHIN_DAYS ? 'warning' : undefined;
  return (
    <>
      <dt>Certificate</dt>
      <dd data-fact="Certificate">
        {facts.subject} <span className="hint">(issued by {facts.issuer})</span>
        <div className={tone}>
          {days < 0
            ? `expired ${auditTime(facts.notAfter)}`
            : `expires ${auditTime(facts.notAfter)} (in ${days} day${days === 1 ? '' : 's'})`}
        </div>
      </dd>
    </>
  );
}
