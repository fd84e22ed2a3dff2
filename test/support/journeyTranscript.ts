import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './repo.js';
import type { TerminalSession } from './terminal.js';

const TRANSCRIPTS = process.env.KUBECRED_TRANSCRIPTS ?? path.join(REPO_ROOT, 'test-results', 'journeys');

/**
 * A journey written down as a person lived it: what they did, what each terminal and page showed
 * them, each line stamped with the time since the journey began. Saved beside the screenshots,
 * so a reviewer reads the walk and its waits without running it again.
 */
export class JourneyTranscript {
  private readonly started = performance.now();
  private readonly entries: Array<{ at: number; line: string }> = [];
  private readonly terminals: Array<{ label: string; session: TerminalSession }> = [];

  constructor(private readonly title: string) {}

  /** Something the person did: a command typed, a click. */
  did(action: string): void {
    this.entries.push({ at: performance.now(), line: `> ${action}` });
  }

  /** Words a page (or a command's output) showed the person, line by line. */
  saw(where: string, text: string): void {
    const at = performance.now();
    for (const line of visibleLines(text)) this.entries.push({ at, line: `  [${where}] ${line}` });
  }

  /** A terminal whose every line, and every line typed into it, goes into the transcript with its time. */
  watch(label: string, session: TerminalSession): TerminalSession {
    this.terminals.push({ label, session });
    return session;
  }

  /** Writes `<slug>.txt` under test-results/journeys and returns its path. */
  async save(slug: string): Promise<string> {
    const lines = [...this.entries];
    for (const { label, session } of this.terminals) {
      for (const event of session.events()) {
        if (event.kind === 'typed') lines.push({ at: event.at, line: `  [${label}] (typed ${event.text})` });
        else for (const line of visibleLines(event.text)) lines.push({ at: event.at, line: `  [${label}] ${line}` });
      }
    }
    lines.sort((a, b) => a.at - b.at);
    const body = lines.map(({ at, line }) => `${stamp(at - this.started)}  ${line}`).join('\n');
    const file = path.join(TRANSCRIPTS, `${slug}.txt`);
    await mkdir(TRANSCRIPTS, { recursive: true });
    await writeFile(file, `# ${this.title}\n\n${body}\n`);
    return file;
  }
}

function stamp(ms: number): string {
  return `+${(ms / 1000).toFixed(3).padStart(7)} s`;
}

function visibleLines(text: string): string[] {
  const plain = text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').replace(/\r/g, '');
  return plain.split('\n').filter((line) => line.trim() !== '');
}
