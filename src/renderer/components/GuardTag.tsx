// A shield: whole while the guard holds, struck through while it is lifted, so the state never
// rests on colour alone (24x24 grid, stroked in the text colour, as the state badges are).
const SHIELD = 'M12 3 4 6v6c0 4.5 3.4 8 8 9 4.6-1 8-4.5 8-9V6z';
const HOLDS = 'M9 12l2 2 4-4';
const LIFTED = 'M3 3l18 18';

export function GuardIcon({ lifted }: { lifted: boolean }) {
  return (
    <svg className="badge-icon" viewBox="0 0 24 24" width="14" height="14" aria-hidden="true" focusable="false">
      <path
        d={`${SHIELD} ${lifted ? LIFTED : HOLDS}`}
        fill="none"
        stroke="currentColor"
        strokeWidth="2.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
    </svg>
  );
}

/**
 * The guard's state as a pill: "guarded" or "guard lifted" on a row, the full words
 * (guardWords: "guard lifted, back in 14 min") on the profile's page. `.guard-words` holds the
 * words alone, so what a test or a screen reader reads is the state itself.
 */
export function GuardTag({ words, lifted, title }: { words: string; lifted: boolean; title?: string }) {
  return (
    <span
      className={`badge guard-tag ${lifted ? 'tone-warn' : 'tone-guard'}`}
      data-guard={lifted ? 'lifted' : 'on'}
      title={title}
    >
      <GuardIcon lifted={lifted} />
      <span className="guard-words">{words}</span>
    </span>
  );
}
