import { appendFile, mkdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { AuditLog, AuditRecord } from '../core/auditLog.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '../../shared/config/schema.js';
import { rotateLog } from './logRotation.js';

interface Outage {
  readonly since: string;
  readonly reason: string;
  lost: number;
}

/**
 * The audit trail as JSON lines under the home's state dir (0600).
 *
 * When the disk is full (or the file unwritable), credentials are still served: a developer
 * must not lose their clusters to a full disk. The broker logs the first failure of an outage
 * only, since its log may sit on the same disk, and when writing works again the trail gets one
 * record saying how many records were lost and why, so the gap is visible where people look.
 * At `maxBytes` the file is rotated (config.yaml's `logs:`), so the trail cannot fill the disk.
 */
export class FileAuditLog implements AuditLog {
  private ready: Promise<unknown> | undefined;
  private outage: Outage | undefined;
  /** The file's size as this process knows it; read from disk once, then counted. */
  private size: number | undefined;

  constructor(
    private readonly file: string,
    private readonly limits: () => Promise<LogLimits> = async () => DEFAULT_LOG_LIMITS,
  ) {}

  async append(record: AuditRecord): Promise<void> {
    try {
      this.ready ??= mkdir(path.dirname(this.file), { recursive: true, mode: 0o700 });
      await this.ready;
      const ended = this.outage;
      this.outage = undefined;
      if (ended) {
        try {
          await this.write(this.gapRecord(ended, record.time));
        } catch (error) {
          this.outage = ended;
          throw error;
        }
      }
      await this.write(record);
    } catch (error) {
      this.ready = undefined;
      this.size = undefined;
      if (this.outage) {
        this.outage.lost++;
        return;
      }
      this.outage = {
        since: record.time,
        reason: (error as NodeJS.ErrnoException).code ?? (error as Error).message,
        lost: 1,
      };
      throw error;
    }
  }

  private async write(record: AuditRecord): Promise<void> {
    const line = `${JSON.stringify(record)}\n`;
    const bytes = Buffer.byteLength(line);
    this.size ??= await stat(this.file).then(
      (info) => info.size,
      () => 0,
    );
    const { maxBytes, keep } = await this.limits();
    if (this.size > 0 && this.size + bytes > maxBytes) {
      rotateLog(this.file, keep, 'rename');
      this.size = 0;
    }
    await appendFile(this.file, line, { mode: 0o600 });
    this.size += bytes;
  }

  private gapRecord(outage: Outage, until: string): AuditRecord {
    return {
      time: until,
      profile: '-',
      caller: { client: 'kubecred' },
      outcome: 'failed',
      error: `${outage.lost} audit record(s) from ${outage.since} on could not be written (${outage.reason})`,
    };
  }
}
