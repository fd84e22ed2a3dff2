// Reads kube-apiserver's own audit log: the far side's word on what arrived, whatever a
// client printed.
import { readFile } from 'node:fs/promises';

export interface ServerAuditEvent {
  readonly auditID: string;
  readonly stage: string;
  readonly verb: string;
  readonly requestURI: string;
  readonly user: { readonly username: string };
  readonly objectRef?: {
    readonly resource?: string;
    readonly subresource?: string;
    readonly namespace?: string;
    readonly name?: string;
  };
  readonly responseStatus?: { readonly code?: number };
  readonly requestObject?: Record<string, unknown>;
}

export async function serverAuditEvents(file: string): Promise<ServerAuditEvent[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as ServerAuditEvent)
    .filter((event) => event.stage === 'ResponseComplete');
}

/** The events of `username` for `resource` (e.g. "configmaps", "serviceaccounts/token"). */
export async function eventsAbout(
  file: string,
  username: string,
  resource: string,
  name?: string,
): Promise<ServerAuditEvent[]> {
  const [plain, sub] = resource.split('/');
  return (await serverAuditEvents(file)).filter(
    (e) =>
      e.user.username === username &&
      e.objectRef?.resource === plain &&
      e.objectRef?.subresource === sub &&
      (name === undefined || e.objectRef?.name === name),
  );
}

/**
 * Waits until the server has logged the request that marks a point in time (a GET of a
 * ConfigMap that does not exist, by name), so every request sent before it has been logged too.
 */
export async function settled(file: string, marker: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if ((await serverAuditEvents(file)).some((e) => e.objectRef?.name === marker)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`the API server's audit log never showed ${marker}`);
}
