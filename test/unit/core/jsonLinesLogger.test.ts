import { describe, expect, it } from 'vitest';
import { jsonLinesLogger } from '../../../src/main/core/logger.js';

// C5 of the third security review: some of what is logged comes from strangers (a request's
// path, a server's words), so every field of a line is bounded.
describe('jsonLinesLogger', () => {
  it('bounds the message and every field, and says how much was cut', () => {
    const lines: string[] = [];
    const logger = jsonLinesLogger((line) => lines.push(line));
    logger.warn('x'.repeat(15_000), { line: 'A'.repeat(15_000), nested: { list: 'B'.repeat(15_000) }, port: 8443 });
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBeLessThan(4_000);
    const record = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(record.line).toMatch(/^A{1000}… \(14000 more characters\)$/);
    expect(record.message).toMatch(/… \(14000 more characters\)$/);
    expect(String(record.nested)).toMatch(/^\{"list":"B+… \(\d+ more characters\)$/);
    expect(record.port).toBe(8443);
  });

  it('keeps short values as they are', () => {
    const lines: string[] = [];
    jsonLinesLogger((line) => lines.push(line)).info('stopping', { signal: 'SIGTERM', ok: true });
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 'info', message: 'stopping', signal: 'SIGTERM', ok: true });
  });
});
