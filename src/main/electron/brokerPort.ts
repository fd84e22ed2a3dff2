import type { ProfileSummary } from '../../shared/api/status.js';
import { ROUTES } from '../../shared/api/routes.js';
import { profileSummarySchema } from '../../shared/api/status.js';
import type { BrokerAnswer } from '../cli/brokerClient.js';
import { z } from 'zod';

/** What the tray and the windows ask of the broker. main.ts backs it with the broker's own API. */
export interface BrokerPort {
  listProfiles(): Promise<ProfileSummary[]>;
  login(profile: string): Promise<{ expiresAt: string | null }>;
  logout(profile: string): Promise<void>;
  /** Get a fresh credential now (a login for interactive providers). */
  refresh(profile: string): Promise<{ expiresAt: string | null }>;
  /** Forget cached credentials and PINs now. */
  lockAll(): Promise<void>;
}

/** The slice of BrokerClient the adapter needs (so tests can fake it). */
export interface BrokerRequester {
  request(method: string, path: string, body?: unknown): Promise<BrokerAnswer>;
}

/** A broker error, carried as the broker's own message and fix. */
export class BrokerCallError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = 'BrokerCallError';
  }
}

const errorBody = z.object({ error: z.object({ message: z.string(), hint: z.string().optional() }).passthrough() }).passthrough();
const loginBody = z.object({ expiresAt: z.string().nullable().optional() }).passthrough();
const profilesBody = z.object({ profiles: z.array(profileSummarySchema) });

async function call<T>(client: BrokerRequester, method: string, path: string, schema: z.ZodType<T>): Promise<T> {
  const answer = await client.request(method, path);
  let body: unknown;
  try {
    body = JSON.parse(answer.body);
  } catch {
    body = undefined;
  }
  if (answer.status < 200 || answer.status >= 300) {
    const parsed = errorBody.safeParse(body);
    if (parsed.success) throw new BrokerCallError(parsed.data.error.message, parsed.data.error.hint);
    throw new BrokerCallError(`the broker answered ${answer.status}`);
  }
  const parsed = schema.safeParse(body);
  if (!parsed.success) throw new BrokerCallError('the broker sent an answer this app does not understand');
  return parsed.data;
}

const profilePath = (profile: string, action: 'login' | 'logout') => `${ROUTES.profiles}/${encodeURIComponent(profile)}/${action}`;

/** The BrokerPort over the broker's HTTP API (the same API the CLI and the web UI use). */
export function httpBrokerPort(client: BrokerRequester): BrokerPort {
  const login = async (profile: string) => ({ expiresAt: (await call(client, 'POST', profilePath(profile, 'login'), loginBody)).expiresAt ?? null });
  return {
    listProfiles: async () => (await call(client, 'GET', ROUTES.profiles, profilesBody)).profiles,
    login,
    logout: async (profile) => void (await call(client, 'POST', profilePath(profile, 'logout'), z.unknown())),
    refresh: login,
    lockAll: async () => void (await call(client, 'POST', '/v1/lock', z.unknown())),
  };
}
