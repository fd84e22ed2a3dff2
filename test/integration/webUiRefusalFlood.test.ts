import { appendFileSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { connect } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonLinesLogger } from '../../src/main/core/logger.js';
import { startWebUi } from '../../src/main/webui/startWebUi.js';
import type { WebUi } from '../../src/main/webui/webUiPorts.js';
import { bareWebUiPorts } from '../support/bareWebUiPorts.js';
import { makeTempHome, type TempHome } from '../support/tempHome.js';

const URL_PATH = `/${'A'.repeat(15_000)}`;

/** One refused request, as another local user's program sends it: a 15 KB URL, a foreign Host. */
function refused(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () =>
      socket.write(`GET ${URL_PATH} HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', () => undefined);
    socket.on('close', () => resolve());
    socket.on('error', () => resolve());
  });
}

// C5 of the third security review: each refused request logged its whole URL, so another user
// grew the broker's log by 29.5 MB in 1.3 s. Refusals are now a line per reason a minute.
describe('a flood of refused web UI requests and the broker log', () => {
  let home: TempHome;
  let ui: WebUi;
  let logFile: string;

  beforeAll(async () => {
    home = await makeTempHome();
    logFile = path.join(home.dir, 'daemon.log');
    // As the daemon wires it: the web UI's diagnostics through the broker's JSON-lines logger.
    const logger = jsonLinesLogger((line) => appendFileSync(logFile, line));
    ui = await startWebUi({ ports: bareWebUiPorts(), log: (line) => logger.info(line) });
  });

  afterAll(async () => {
    await ui?.close();
    await home?.cleanup();
  });

  it('2,000 refused requests with 15 KB URLs add a few hundred bytes, and no URL', async () => {
    const port = Number(new URL(ui.url).port);
    for (let batch = 0; batch < 40; batch++) await Promise.all(Array.from({ length: 50 }, () => refused(port)));
    const size = (await stat(logFile)).size;
    expect(size).toBeLessThan(1_000);
    const text = await readFile(logFile, 'utf8');
    expect(text).not.toContain('AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    expect(text).toContain('wrong Host header');
  }, 60_000);
});
