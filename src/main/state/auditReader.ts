import { open } from 'node:fs/promises';
import { auditEntrySchema, type AuditEntry } from '../../shared/api/webUiApi.js';

export interface AuditTailOptions {
  /** How many records at most (the newest). */
  readonly limit?: number;
  /** How much of the file's end is read: the log grows forever, the page needs only its tail. */
  readonly maxBytes?: number;
}

/**
 * The newest records of the JSON-lines audit log, newest first. Reads a bounded tail of the
 * file; a line cut by that bound, a line half-written by a crash, or anything that is not a
 * record is skipped rather than failing the whole view. No file yet means no records.
 */
export async function readAuditTail(
  file: string,
  { limit = 200, maxBytes = 256 * 1024 }: AuditTailOptions = {},
): Promise<AuditEntry[]> {
  let handle;
  try {
    handle = await open(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let text: string;
  let cut: boolean;
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, maxBytes);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    text = buffer.subarray(0, bytesRead).toString('utf8');
    cut = size > length;
  } finally {
    await handle.close();
  }
  const lines = text.split('\n');
  if (cut) lines.shift(); // starts mid-line
  const records: AuditEntry[] = [];
  for (let i = lines.length - 1; i >= 0 && records.length < limit; i--) {
    const record = parseLine(lines[i] ?? '');
    if (record) records.push(record);
  }
  return records;
}

function parseLine(line: string): AuditEntry | undefined {
  if (!line.trim()) return undefined;
  try {
    const parsed = auditEntrySchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
