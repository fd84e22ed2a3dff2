import type { EntryList, KubeconfigFile, NamedEntry } from './kubeconfigDocument.js';
import { loadKubeconfigFile, namedEntries } from './kubeconfigDocument.js';

/** An entry as kubectl sees it: the first file that defines a name wins, later ones are shadowed. */
export interface LocatedEntry extends NamedEntry {
  readonly source: KubeconfigFile;
}

export async function loadKubeconfigSet(files: readonly string[]): Promise<KubeconfigFile[]> {
  const loaded: KubeconfigFile[] = [];
  for (const file of files) loaded.push(await loadKubeconfigFile(file));
  return loaded;
}

export function findEntry(files: readonly KubeconfigFile[], list: EntryList, name: string): LocatedEntry | undefined {
  for (const source of files) {
    const entry = namedEntries(source.doc, list).find((candidate) => candidate.name === name);
    if (entry) return { ...entry, source };
  }
  return undefined;
}

/** Every entry kubectl would use, in file order, and those it ignores because an earlier file has the name. */
export function effectiveEntries(
  files: readonly KubeconfigFile[],
  list: EntryList,
): { used: LocatedEntry[]; shadowed: LocatedEntry[] } {
  const seen = new Set<string>();
  const used: LocatedEntry[] = [];
  const shadowed: LocatedEntry[] = [];
  for (const source of files) {
    for (const entry of namedEntries(source.doc, list)) {
      (seen.has(entry.name) ? shadowed : used).push({ ...entry, source });
      seen.add(entry.name);
    }
  }
  return { used, shadowed };
}

/** current-context of the first file that sets one, as client-go merges them. */
export function currentContext(files: readonly KubeconfigFile[]): string | undefined {
  for (const { doc } of files) {
    const value = doc.get('current-context');
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
