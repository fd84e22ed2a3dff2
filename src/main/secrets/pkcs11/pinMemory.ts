import type { Clock } from '../../core/clock.js';

/**
 * The PIN of one token, kept in broker memory for the token's pinGrace after a successful
 * C_Login, and tied to the serial of the token that accepted it: it is only ever offered
 * again to that same token (to log in again after a session was lost), never to another.
 */
export class PinMemory {
  private kept: { pin: string; serial: string; until: number } | undefined;

  constructor(
    private readonly clock: Clock,
    private readonly graceMs: number,
  ) {}

  remember(pin: string, serial: string): void {
    this.kept = { pin, serial, until: this.clock.now() + this.graceMs };
  }

  /** The PIN while its grace lasts and only for the token that accepted it. */
  recall(serial: string): string | undefined {
    return this.valid() && this.kept?.serial === serial ? this.kept.pin : undefined;
  }

  /** When the kept PIN's grace ends (ms since the epoch); undefined when none is kept. */
  until(): number | undefined {
    return this.kept?.until;
  }

  valid(): boolean {
    return this.kept !== undefined && this.clock.now() < this.kept.until;
  }

  /** True once the grace has run out on a PIN still held (the caller then logs out). */
  expired(): boolean {
    return this.kept !== undefined && !this.valid();
  }

  forget(): void {
    this.kept = undefined;
  }
}
