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
    this.answers.set(profile, { value, until: this.now() + 60_000 });
  }

  take(profile: string): string | undefined {
    const offered = this.answers.get(profile);
    this.answers.delete(profile);
    return offered && offered.until > this.now() ? offered.value : undefined;
  }
}
