import { UsageError, type Command } from '../io.js';

export const registryCommand: Command = {
  name: 'registry',
  usage: 'kubecred registry',
  async run() {
    throw new UsageError('kubecred registry is not built yet');
  },
};
