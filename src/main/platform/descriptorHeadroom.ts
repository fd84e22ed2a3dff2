import { readdirSync, readFileSync } from 'node:fs';

/**
 * How many more files this process may open, on Linux; undefined where it cannot be told.
 * Native modules do not all survive running out (the keyring binding crashed the broker under
 * EMFILE, with nothing logged), so the broker asks before it calls one.
 */
export function descriptorHeadroom(procDir = '/proc/self'): number | undefined {
  if (process.platform !== 'linux') return undefined;
  let limit: number;
  try {
    const line = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync(`${procDir}/limits`, 'utf8'));
    if (!line || line[1] === 'unlimited') return undefined;
    limit = Number(line[1]);
  } catch (error) {
    // No descriptor left even to read the limits: that is the answer.
    return (error as NodeJS.ErrnoException).code === 'EMFILE' || (error as NodeJS.ErrnoException).code === 'ENFILE'
      ? 0
      : undefined;
  }
  try {
    // The listing itself holds one descriptor while it runs; it is counted, a margin of one.
    return Math.max(0, limit - readdirSync(`${procDir}/fd`).length);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EMFILE' || (error as NodeJS.ErrnoException).code === 'ENFILE'
      ? 0
      : undefined;
  }
}
