import os from 'node:os';
import { doctorChecks } from '../../doctor/doctorChecks.js';
import { exitCodeOf, renderJson, renderText } from '../../doctor/renderReport.js';
import { runChecks } from '../../doctor/runChecks.js';
import type { Command } from '../io.js';
import { parseOutputFlag } from '../outputFlag.js';

/** A hung keychain, token driver or issuer costs this much, once, and never the whole run. */
const CHECK_TIMEOUT_MS = 8_000;

export const doctorCommand: Command = {
  name: 'doctor',
  usage: 'kubecred doctor [-o json]',
  async run(args, { io, paths }) {
    const output = parseOutputFlag(args);
    const checks = await doctorChecks({
      paths,
      env: io.env,
      platform: process.platform,
      arch: process.arch,
      homedir: os.homedir(),
      uid: process.getuid?.() ?? 0,
    });
    const results = await runChecks(checks, CHECK_TIMEOUT_MS);
    const tty = (io.stdout as { isTTY?: boolean }).isTTY === true;
    io.stdout.write(output === 'json' ? renderJson(results) : renderText(results, tty ? 'unicode' : 'ascii'));
    return exitCodeOf(results);
  },
};
