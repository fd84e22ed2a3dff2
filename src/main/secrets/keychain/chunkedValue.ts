import { createHash } from 'node:crypto';

/**
 * Keychains cap an item's size (Windows Credential Manager ~2.5 KB; macOS and some Secret
 * Service setups fail on large items), while ID tokens and certificate chains are larger.
 * A large value is stored as numbered chunks plus a header item that names their count and
 * a digest, so a half-written value is detected instead of served.
 */
export const CHUNK_CHARS = 1000;
const HEADER_PREFIX = 'kubecred-chunks:v1:';

export interface ChunkPlan {
  readonly header: string;
  readonly chunks: readonly string[];
}

export function planChunks(value: string): ChunkPlan | undefined {
  if (value.length <= CHUNK_CHARS && !value.startsWith(HEADER_PREFIX)) return undefined;
  const chunks: string[] = [];
  for (let i = 0; i < value.length; i += CHUNK_CHARS) chunks.push(value.slice(i, i + CHUNK_CHARS));
  return { header: `${HEADER_PREFIX}${chunks.length}:${digest(value)}`, chunks };
}

/** The chunk count a stored item announces, or undefined when it is a plain value. */
export function parseHeader(item: string): { count: number; digest: string } | undefined {
  if (!item.startsWith(HEADER_PREFIX)) return undefined;
  const [count, hash] = item.slice(HEADER_PREFIX.length).split(':');
  const n = Number(count);
  return Number.isInteger(n) && n > 0 && n < 10_000 && hash ? { count: n, digest: hash } : undefined;
}

export function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}

export function chunkAccount(account: string, index: number): string {
  return `${account}#${index}`;
}
