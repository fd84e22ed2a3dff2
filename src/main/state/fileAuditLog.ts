import { statSync } from 'node:fs';
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { AuditLog, AuditRecord } from '../core/auditLog.js';
import { DEFAULT_LOG_LIMITS, type LogLimits } from '../../shared/config/schema.js';
import { rotateLog } from './logRotation.js';
import { ChangeSignal } from '../core/changeSignal.js';

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
  /**
   * Kept open between records: one write per record, where opening, writing and closing were
   * three trips through the thread pool on every credential served.
   */
  private handle: { readonly file: FileHandle; readonly inode: number } | undefined;
  /** Records are written one after another, in the order they came: they share the handle. */
  private queue: Promise<void> = Promise.resolve();
  /** Told once a record is on disk: a window showing the trail reads it again. */
  readonly appended = new ChangeSignal();

  constructor(
    private readonly file: string,
    private readonly limits: () => Promise<LogLimits> = async () => DEFAULT_LOG_LIMITS,
  ) {}

  append(record: AuditRecord): Promise<void> {
    const appended = this.queue.then(() => this.appendNow(record)).then(() => this.appended.notify());
    this.queue = appended.catch(() => undefined);
    return appended;
  }

  /** Closes the file; a later record opens it again. */
  close(): Promise<void> {
    const closed = this.queue.then(() => this.closeHandle());
    this.queue = closed;
    return closed;
  }

  private async appendNow(record: AuditRecord): Promise<void> {
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
      await this.closeHandle();
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
    const onDisk = statSync(this.file, { throwIfNoEntry: false });
    // Someone moved or deleted the trail (a rotation of theirs, a clean-up): the records go to
    // a file at its path again, not into the one that is gone, and its size is that file's.
    if (this.handle && this.handle.inode !== onDisk?.ino) {
      await this.closeHandle();
      this.size = onDisk?.size ?? 0;
    }
    this.size ??= onDisk?.size ?? 0;
    const { maxBytes, keep } = await this.limits();
    if (this.size > 0 && this.size + bytes > maxBytes) {
      await this.closeHandle();
      rotateLog(this.file, keep, 'rename');
      this.size = 0;
    }
    this.handle ??= await this.openHandle();
    await this.handle.file.write(line);
    this.size += bytes;
  }

  private async openHandle(): Promise<{ file: FileHandle; inode: number }> {
    const file = await open(this.file, 'a', 0o600);
    try {
      return { file, inode: (await file.stat()).ino };
    } catch (error) {
      await file.close();
      throw error;
    }
  }

  private async closeHandle(): Promise<void> {
    const handle = this.handle;
    this.handle = undefined;
    await handle?.file.close().catch(() => undefined);
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
