// A ceiling, not a quota: answers are screened to configured profiles that take them before
// they get here, so the map only ever outgrows it if a caller offers for many profiles within
// a minute. Then the oldest goes; memory stays bounded whatever is posted.
const MAX_OFFERED = 64;
const KEPT_MS = 60_000;

/**
 * Answers typed in a terminal for a profile's next question (an MFA code, a Keystone
 * password), when the broker had no window to ask in: the CLI asks, offers the answer here,
 * and the provider takes it instead of asking. Each is kept in memory only, for one question
 * within a minute.
 */
export class OfferedAnswers {
  private readonly answers = new Map<string, { value: string; until: number }>();

  constructor(private readonly now: () => number) {}

  offer(profile: string, value: string): void {
    this.dropExpired();
    // Re-inserted, so a profile offered again counts as the newest.
    this.answers.delete(profile);
    while (this.answers.size >= MAX_OFFERED) this.answers.delete(this.answers.keys().next().value as string);
    this.answers.set(profile, { value, until: this.now() + KEPT_MS });
  }

  take(profile: string): string | undefined {
    const offered = this.answers.get(profile);
    this.answers.delete(profile);
    return offered && offered.until > this.now() ? offered.value : undefined;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [profile, offered] of this.answers) if (offered.until <= now) this.answers.delete(profile);
  }
}
