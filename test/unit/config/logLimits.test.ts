import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../src/main/config/configLoader.js';
import { DEFAULT_LOG_LIMITS } from '../../../src/shared/config/schema.js';

describe('logs: in config.yaml', () => {
  it('defaults to 10 MiB a file and 3 old files', () => {
    expect(DEFAULT_LOG_LIMITS).toEqual({ maxBytes: 10 * 1024 * 1024, keep: 3 });
    const parsed = parseConfig('logs: { keep: 5 }\n', 'config.yaml');
    expect(parsed.ok && parsed.config.logs).toEqual({ maxBytes: 10 * 1024 * 1024, keep: 5 });
  });

  it('refuses a size too small to hold a line, and unknown keys', () => {
    const small = parseConfig('logs: { maxBytes: 100 }\n', 'config.yaml');
    expect(small.ok ? '' : small.error).toContain('logs.maxBytes is at least 4096');
    expect(parseConfig('logs: { maxFiles: 2 }\n', 'config.yaml').ok).toBe(false);
  });
});
