import { readFile, stat } from 'node:fs/promises';
import { LineCounter, isMap, isScalar, isSeq, parseDocument, type Document, type YAMLMap } from 'yaml';

/** A kubeconfig that does not parse, or has a shape kubectl would refuse: never edited. */
export class KubeconfigSyntaxError extends Error {
  constructor(
    readonly file: string,
    readonly line: number | undefined,
    detail: string,
  ) {
    super(
      `${file}${line ? `:${line}` : ''}: ${detail}. Nothing was changed: fix the file (kubectl config view shows what kubectl makes of it) and run again`,
    );
  }
}

/** One kubeconfig file as read from disk, with the yaml document that keeps its comments and order. */
export interface KubeconfigFile {
  readonly file: string;
  readonly exists: boolean;
  readonly text: string;
  /** Permission bits to keep on rewrite; 0600 for a file we create. */
  readonly mode: number;
  readonly doc: Document.Parsed;
  /** The 1-based line a node starts on, for messages. */
  lineOf(node: unknown): number | undefined;
}

/** A named entry of users:, contexts: or clusters:, with the map under its `user`/`context`/`cluster` key. */
export interface NamedEntry {
  readonly name: string;
  readonly item: YAMLMap;
  readonly body: YAMLMap | undefined;
}

export type EntryList = 'users' | 'contexts' | 'clusters';
const BODY_KEY: Record<EntryList, string> = { users: 'user', contexts: 'context', clusters: 'cluster' };

/**
 * Kubeconfigs of people hold tens of contexts, a few hundred KiB at most. Past this the YAML
 * document alone takes hundreds of MiB (and the web UI's wizard runs inside the broker), so
 * such a file is refused with a way out rather than edited slowly.
 */
export const MAX_KUBECONFIG_BYTES = 4 * 1024 * 1024;

/**
 * Time and memory go with the number of YAML nodes, not bytes: 4 MiB of `[1, 1, 1, ...]` took
 * 37 s and 1.3 GB, 4 MiB of certificates 1.6 s. Lines plus commas count the nodes within a
 * small factor without parsing (a line holds a key and a value; more need commas). 50,000 is
 * some 3,500 contexts with their clusters and users: about 5 s at worst, measured.
 */
export const MAX_KUBECONFIG_ITEMS = 50_000;
const SPLIT_HINT =
  "split it into several files on KUBECONFIG (kubectl config view --minify --flatten --context <name> writes one context's part)";

function itemCount(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 10 || code === 44) count++;
  }
  return count;
}

export async function loadKubeconfigFile(file: string): Promise<KubeconfigFile> {
  const size = await stat(file).then(
    (info) => info.size,
    () => 0,
  );
  if (size > MAX_KUBECONFIG_BYTES) {
    throw new KubeconfigSyntaxError(
      file,
      undefined,
      `it is ${(size / 1024 / 1024).toFixed(1)} MiB, more than the ${MAX_KUBECONFIG_BYTES / 1024 / 1024} MiB Kubecred edits; ${SPLIT_HINT}`,
    );
  }
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) =>
    error.code === 'ENOENT' ? undefined : Promise.reject(new Error(`cannot read ${file}: ${error.message}`)),
  );
  const mode = text === undefined ? 0o600 : (await stat(file)).mode & 0o777;
  const lines = new LineCounter();
  const doc = parseKubeconfig(text ?? '', file, lines);
  const lineOf = (node: unknown): number | undefined => {
    const start = (node as { range?: [number] } | undefined)?.range?.[0];
    return start === undefined ? undefined : lines.linePos(start).line;
  };
  return { file, exists: text !== undefined, text: text ?? '', mode, doc, lineOf };
}

/**
 * How every reader here parses a kubeconfig: YAML 1.1, as kubectl reads it (sigs.k8s.io/yaml),
 * so `on`, `yes` and `0755` mean what they mean to kubectl. The look-only reader
 * (kubeconfigUsers.ts) takes what it can from any file; parseKubeconfig below, for files
 * Kubecred rewrites, also refuses shapes it could not rewrite safely.
 */
export function parseKubeconfigYaml(text: string, lineCounter: LineCounter): Document.Parsed {
  return parseDocument(text, { lineCounter, prettyErrors: false, keepSourceTokens: false, version: '1.1' });
}

/** Parses kubeconfig text; throws KubeconfigSyntaxError naming the line of the first problem. */
export function parseKubeconfig(text: string, file: string, lineCounter = new LineCounter()): Document.Parsed {
  const items = itemCount(text);
  if (items > MAX_KUBECONFIG_ITEMS) {
    throw new KubeconfigSyntaxError(
      file,
      undefined,
      `it has ${items.toLocaleString('en')} lines and list items, more than the ${MAX_KUBECONFIG_ITEMS.toLocaleString('en')} Kubecred edits; ${SPLIT_HINT}`,
    );
  }
  const doc = parseKubeconfigYaml(text, lineCounter);
  const lineOf = (offset: number | undefined): number | undefined =>
    offset === undefined ? undefined : lineCounter.linePos(offset).line;
  const [error] = doc.errors;
  if (error)
    throw new KubeconfigSyntaxError(file, lineOf(error.pos[0]), `not valid YAML (${error.message.split('\n')[0]})`);
  if (doc.contents !== null && !isMap(doc.contents))
    throw new KubeconfigSyntaxError(
      file,
      lineOf(doc.contents.range?.[0]),
      'a kubeconfig is a map with clusters:, users: and contexts:',
    );
  for (const list of ['users', 'contexts', 'clusters'] as const) {
    const node = doc.get(list, true);
    if (node === undefined || (isScalar(node) && node.value === null)) continue;
    if (!isSeq(node))
      throw new KubeconfigSyntaxError(
        file,
        lineOf((node as { range?: [number] }).range?.[0]),
        `${list}: must be a list`,
      );
    for (const item of node.items) {
      const name = isMap(item) ? item.get('name') : undefined;
      if (!isMap(item) || typeof name !== 'string' || name === '')
        throw new KubeconfigSyntaxError(
          file,
          lineOf((item as { range?: [number] }).range?.[0]),
          `an entry of ${list}: has no name`,
        );
      const body = item.get(BODY_KEY[list], true);
      if (body !== undefined && !isMap(body) && !(isScalar(body) && body.value === null)) {
        throw new KubeconfigSyntaxError(
          file,
          lineOf((body as { range?: [number] }).range?.[0]),
          `${list} entry "${name}": ${BODY_KEY[list]}: must be a map`,
        );
      }
    }
  }
  return doc;
}

export function namedEntries(doc: Document, list: EntryList): NamedEntry[] {
  const node = doc.get(list, true);
  if (!isSeq(node)) return [];
  return node.items.filter(isMap).map((item) => {
    const body = item.get(BODY_KEY[list], true);
    return { name: String(item.get('name')), item, body: isMap(body) ? body : undefined };
  });
}

/**
 * Serializes an edited kubeconfig. Sequences keep the file's indentation style (kubectl writes
 * `users:\n- name`, people often indent). Long plain scalars fold at 80 columns, as kubectl and
 * gcloud write them; a base64 value has no spaces and never folds. `{a: b}` stays unpadded.
 */
export function renderKubeconfig(file: KubeconfigFile, doc: Document = file.doc): string {
  const indentSeq = !/^(users|clusters|contexts):[ \t]*\r?\n- /m.test(file.text);
  const flowCollectionPadding = !/\{\S[^}\n]*\S\}/.test(file.text);
  const text = doc.toString({ indentSeq, flowCollectionPadding });
  // yaml sets a comment at the end of the file off with a blank line; keep the file's own spacing.
  const trailing = doc.comment ? `\n#${doc.comment.split('\n')[0]}` : undefined;
  const spaced = trailing && !file.text.includes(`\n${trailing}`) ? text.replace(`\n${trailing}`, trailing) : text;
  return withOriginalCommentSpacing(spaced, file.text);
}

/** A line with the blanks before each `#` made one space: how yaml writes a trailing comment. */
function commentSpacingKey(line: string): string {
  return line.replace(/[ \t]+#/g, ' #');
}

/**
 * yaml writes one space before a trailing comment, so `server: x   # lab` would lose the
 * alignment its author gave it, on every line of the file. A rendered line that differs from a
 * line of the original only in those blanks gets the original back. Only a key that one line
 * of the original has is used: two lines that differ there may hold different values (a
 * quoted `#`), and guessing between them could change one.
 */
function withOriginalCommentSpacing(rendered: string, original: string): string {
  if (!original.includes('#')) return rendered;
  const byKey = new Map<string, string | null>();
  for (const line of original.split('\n')) {
    if (!/[ \t]#/.test(line)) continue;
    const key = commentSpacingKey(line);
    const seen = byKey.get(key);
    byKey.set(key, seen === undefined || seen === line ? line : null);
  }
  return rendered
    .split('\n')
    .map((line) => (line.includes(' #') ? (byKey.get(commentSpacingKey(line)) ?? line) : line))
    .join('\n');
}
