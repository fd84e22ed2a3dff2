/** One line of the audit trail: who asked for which profile, and what happened. No secret, ever. */
export interface AuditRecord {
  readonly time: string;
  readonly profile: string;
  readonly caller: { readonly pid?: number; readonly name?: string; readonly client: string };
  readonly outcome: 'served' | 'denied' | 'failed';
  readonly source?: 'cache' | 'provider';
  readonly error?: string;
}

export interface AuditLog {
  append(record: AuditRecord): Promise<void>;
}
