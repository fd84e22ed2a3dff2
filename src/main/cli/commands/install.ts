import { UsageError, type Command } from '../io.js';

export const installCommand: Command = {
  name: 'install',
  usage: 'kubecred install',
  async run() {
    throw new UsageError('kubecred install is not built yet');
  },
};
