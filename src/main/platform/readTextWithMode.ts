import { readFile, stat } from 'node:fs/promises';

/** A text file and its permission bits; undefined when it does not exist. Other failures throw. */
export async function readTextWithMode(file: string): Promise<{ text: string; mode: number } | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(file, 'utf8'), stat(file)]);
    return { text, mode: info.mode & 0o7777 };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
