import os from 'node:os';
import path from 'node:path';
import { runDemo } from '../../demo/runDemo.js';
import { kubecredPaths } from '../../platform/paths.js';
import { UsageError, type Command } from '../io.js';

export const demoCommand: Command = {
  name: 'demo',
  usage: 'kubecred demo [--once]',
  async run(args, { io }) {
    const once = args.includes('--once');
    if (args.some((a) => a !== '--once'))
      throw new UsageError(`unexpected argument "${args.find((a) => a !== '--once')}"`);
    // A home of its own, so the demo never touches the user's real profiles or broker.
    const home = io.env.KUBECRED_DEMO_HOME || path.join(os.tmpdir(), `kubecred-demo-${process.getuid?.() ?? 'user'}`);
    const paths = kubecredPaths({
      platform: process.platform,
      env: { ...io.env, KUBECRED_HOME: home },
      homedir: os.homedir(),
      tmpdir: os.tmpdir(),
      uid: process.getuid?.() ?? 0,
    });
    return runDemo({ paths, io, once, removeHome: !io.env.KUBECRED_DEMO_HOME });
  },
};
