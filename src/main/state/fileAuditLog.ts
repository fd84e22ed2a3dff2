import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { AuditLog, AuditRecord } from '../broker/auditLog.js';

/** The audit trail as JSON lines under the home's state dir (0600). */
export class FileAuditLog implements AuditLog {
  private ready: Promise<unknown> | undefined;

  constructor(private readonly file: string) {}

  async append(record: AuditRecord): Promise<void> {
    this.ready ??= mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
    await this.ready;
    await appendFile(this.file, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  }
}
