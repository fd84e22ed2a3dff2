import type { Clock } from '../../../src/main/core/clock.js';

export class FakeClock implements Clock {
  constructor(private time = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}
